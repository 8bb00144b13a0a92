import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

@Suite("Receive: edits and deletes from peers")
struct EditAndDeleteTests {
    /// A group where `author` posted `original` ("first text") and `other` also holds a sender key.
    private func groupWithMessage() async throws -> (ReceiveHarness, RemotePeer, RemotePeer, ReceivingChannel, ServerMessage) {
        let h = try await ReceiveHarness.make()
        let author = try h.connectedPeer()
        let other = try h.connectedPeer(oneTimePrekey: 1)
        let channel = ReceivingChannel.group()
        let keys = [try author.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0)), try other.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))]
        let original = try author.group("first text", channel: channel.id.rawValue, at: t(1))
        _ = try await h.ingest(keys + [original], channel)
        return (h, author, other, channel, original)
    }

    private func editContent(by peer: RemotePeer, of messageID: String, text: String, channel: ReceivingChannel, editOf: String? = nil) throws -> String {
        Envelope.group(try peer.groupEnvelope(try peer.payload(text, editOf: editOf ?? messageID), channel: channel.id.rawValue)).content()
    }

    @Test("an edit from the original sender replaces the text and records edited_at (event and REST row alike)")
    func editAccepted() async throws {
        let (h, author, _, channel, original) = try await groupWithMessage()
        let edit = MessageEdit(id: original.id, channelID: channel.id, content: try editContent(by: author, of: original.id.rawValue, text: "second text", channel: channel),
                               editedAt: ServerTimestamp(microseconds: t(5)))
        #expect(try await h.pipeline.ingestEdit(edit, channel: channel) == ReceiveOutcome(messageID: original.id, result: .edited))
        var item = try #require(try await h.reader.item(messageID: original.id))
        #expect(item.text == "second text")
        #expect(item.editedAt == ServerTimestamp(microseconds: t(5)))
        #expect(item.createdAt == original.createdAt)
        // The same edit again (the REST row of it) is a duplicate; a newer REST row is another edit.
        #expect(try await h.pipeline.ingestEdit(edit, channel: channel).result == .duplicate(of: nil))
        let restRow = author.posted(try editContent(by: author, of: original.id.rawValue, text: "third text", channel: channel), kind: .group,
                                    channel: channel.id.rawValue, at: t(1), id: original.id.rawValue, editedAt: t(6))
        #expect(try await h.ingest([restRow], channel)[original.id] == .edited)
        item = try #require(try await h.reader.item(messageID: original.id))
        #expect(item.text == "third text")
        #expect(item.editedAt == ServerTimestamp(microseconds: t(6)))
        #expect(try await h.timeline(channel).count == 1)
        let events = await h.publishedEvents()
        #expect(events.filter { $0.timelineChanges.contains(TimelineChange(channelID: channel.id, messageID: original.id, kind: .edited)) }.count == 2)
    }

    @Test("an edit by someone else, or naming another message, is refused and recorded; the original stays")
    func editRefused() async throws {
        let (h, author, other, channel, original) = try await groupWithMessage()
        let byOther = MessageEdit(id: original.id, channelID: channel.id,
                                  content: try editContent(by: other, of: original.id.rawValue, text: "hijacked", channel: channel), editedAt: nil)
        #expect(try await h.pipeline.ingestEdit(byOther, channel: channel).result == .editRefused(.senderMismatch))
        let wrongTarget = MessageEdit(id: original.id, channelID: channel.id,
                                      content: try editContent(by: author, of: original.id.rawValue, text: "moved", channel: channel, editOf: newID()), editedAt: nil)
        #expect(try await h.pipeline.ingestEdit(wrongTarget, channel: channel).result == .editRefused(.editMismatch))
        let item = try #require(try await h.reader.item(messageID: original.id))
        #expect(item.text == "first text")
        #expect(item.editedAt == nil)
        let refused = try await h.store.refusedInputs(messageID: original.id.rawValue)
        #expect(refused.map(\.kind) == [.edit, .edit])
        #expect(refused.map(\.reason) == [UndecryptableReason.senderMismatch.rawValue, UndecryptableReason.editMismatch.rawValue])
        let events = await h.publishedEvents()
        #expect(events.contains(.inputRefused(reason: "edit refused: sender_mismatch")))
    }

    @Test("a posted message carrying edit_of of another id is refused")
    func postedEditOfRefused() async throws {
        let (h, author, _, channel, original) = try await groupWithMessage()
        let sneaky = author.posted(try editContent(by: author, of: original.id.rawValue, text: "sneaky", channel: channel), kind: .group, channel: channel.id.rawValue, at: t(2))
        #expect(try await h.ingest([sneaky], channel)[sneaky.id] == .undecryptable(.editMismatch))
    }

    /// A group row of `peer` whose payload is a tombstone naming `payloadID` (§6.7).
    private func tombstone(by peer: RemotePeer, deleting payloadID: String, channel: ReceivingChannel, at micros: Int64) throws -> ServerMessage {
        let payload = try MessagePayload(id: WireUUID(text: newID()), timestamp: 1_700_000_000_000, text: "", deleteOf: WireUUID(text: payloadID))
        return peer.posted(Envelope.group(try peer.groupEnvelope(payload.encodedJSON(), channel: channel.id.rawValue)).content(), kind: .group,
                           channel: channel.id.rawValue, at: micros)
    }

    private func payloadID(_ message: ServerMessage, _ h: ReceiveHarness) async throws -> String {
        try #require(try await h.store.receivedMessage(id: message.id.rawValue)?.facts.payloadID)
    }

    @Test("a sender's tombstone wipes the text; a late copy stays deleted; a tombstone before its message erases it on arrival; another sender's or channel's does not")
    func deletes() async throws {
        let (h, author, other, channel, original) = try await groupWithMessage()
        let delete = try tombstone(by: author, deleting: try await payloadID(original, h), channel: channel, at: t(2))
        #expect(try await h.ingest([delete], channel)[delete.id] == .decrypted)
        var item = try #require(try await h.reader.item(messageID: original.id))
        #expect(item.state == .deleted && item.text == nil)
        #expect(try await h.ingest([original, delete], channel) == [original.id: .duplicate(of: nil), delete.id: .duplicate(of: nil)])

        let earlyPayload = try WireUUID(text: newID())
        let earlyDelete = try tombstone(by: author, deleting: earlyPayload.text, channel: channel, at: t(3))
        let early = author.posted(Envelope.group(try author.groupEnvelope(try author.payload("deleted before seen", id: earlyPayload), channel: channel.id.rawValue)).content(),
                                  kind: .group, channel: channel.id.rawValue, at: t(4))
        _ = try await h.ingest([earlyDelete], channel)
        #expect(try await h.ingest([early], channel)[early.id] == .decrypted)
        item = try #require(try await h.reader.item(messageID: early.id))
        #expect(item.state == .deleted && item.text == nil)
        #expect(try await h.timeline(channel).map(\.messageID) == [original.id, early.id])

        // Only the sender's own tombstone in the message's channel erases it.
        let kept = try author.group("kept", channel: channel.id.rawValue, at: t(5))
        _ = try await h.ingest([kept], channel)
        let keptPayload = try await payloadID(kept, h)
        let otherChannel = ReceivingChannel.group()
        _ = try await h.ingest([try author.skd(channel: otherChannel.id.rawValue, to: [h.deviceID], at: t(6))], otherChannel)
        _ = try await h.ingest([try tombstone(by: author, deleting: keptPayload, channel: otherChannel, at: t(7))], otherChannel)
        _ = try await h.ingest([try tombstone(by: other, deleting: keptPayload, channel: channel, at: t(8))], channel)
        #expect(try await h.reader.item(messageID: kept.id)?.text == "kept")
        let events = await h.publishedEvents()
        #expect(events.filter { $0.timelineChanges.contains(TimelineChange(channelID: channel.id, messageID: original.id, kind: .deleted)) }.count == 1)
        #expect(!events.flatMap(\.timelineChanges).contains(TimelineChange(channelID: channel.id, messageID: kept.id, kind: .deleted)))
    }

    @Test("a DM edit from the author is accepted; an edit made on our own device is left to the sending side")
    func directMessageEdits() async throws {
        let h = try await ReceiveHarness.make()
        let author = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        let original = try author.dm("draft", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        _ = try await h.ingest([original], channel)
        let content = Envelope.dm(try author.dmEnvelope(try author.payload("final", editOf: original.id.rawValue), channel: channel.id.rawValue, to: [h.deviceID])).content()
        let edit = MessageEdit(id: original.id, channelID: channel.id, content: content, editedAt: ServerTimestamp(microseconds: t(2)))
        #expect(try await h.pipeline.ingestEdit(edit, channel: channel).result == .edited)
        #expect(try await h.reader.item(messageID: original.id)?.text == "final")

        // Our own device's envelope (an edit we made elsewhere is never addressed to us).
        let ours = RemotePeer(userID: author.userID, deviceID: h.deviceID)
        let elsewhere = try await LocalAccount.make(store: try KeyStore.inMemory(), now: h.clock.now)
        try ours.connect(to: elsewhere.bundle())
        let own = MessageEdit(id: original.id, channelID: channel.id,
                              content: Envelope.dm(try ours.dmEnvelope(try ours.payload("x", editOf: original.id.rawValue), channel: channel.id.rawValue,
                                                                       to: [elsewhere.device.deviceID.rawValue])).content(), editedAt: nil)
        #expect(try await h.pipeline.ingestEdit(own, channel: channel).result == .ignored)
        #expect(try await h.reader.item(messageID: original.id)?.text == "final")
    }

    @Test("an edit of a message still waiting for its key replaces the queued content; the SKD then reveals the edited text")
    func editOfPendingMessage() async throws {
        let h = try await ReceiveHarness.make()
        let author = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        let skd = try author.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        let original = try author.group("before the edit", channel: channel.id.rawValue, at: t(1))
        if case .pending = try await h.ingest([original], channel)[original.id] {} else { Issue.record("expected pending") }
        let edit = MessageEdit(id: original.id, channelID: channel.id, content: try editContent(by: author, of: original.id.rawValue, text: "after the edit", channel: channel),
                               editedAt: ServerTimestamp(microseconds: t(4)))
        if case .pending = try await h.pipeline.ingestEdit(edit, channel: channel).result {} else { Issue.record("expected pending") }
        let outcomes = try await h.pipeline.ingest([skd], channel: channel)
        #expect(outcomes.last == ReceiveOutcome(messageID: original.id, result: .decrypted))
        let item = try #require(try await h.reader.item(messageID: original.id))
        #expect(item.text == "after the edit")
        #expect(item.editedAt == ServerTimestamp(microseconds: t(4)))
    }

    @Test("one batch holding a message and its edited copy shows the edited text once")
    func messageAndEditInOneBatch() async throws {
        let (h, author, _, channel, _) = try await groupWithMessage()
        let fresh = try author.group("v1", channel: channel.id.rawValue, at: t(2))
        let edited = author.posted(try editContent(by: author, of: fresh.id.rawValue, text: "v2", channel: channel), kind: .group, channel: channel.id.rawValue,
                                   at: t(2), id: fresh.id.rawValue, editedAt: t(3))
        let outcomes = try await h.pipeline.ingest([edited, fresh], channel: channel)
        #expect(outcomes.map(\.result) == [.decrypted, .edited])
        #expect(try await h.timeline(channel).map(\.text) == ["first text", "v2"])
    }

    @Test("an edit made on another device of the author opens under that device: over a pending original, and as a REST row never seen before")
    func editFromAnotherDeviceOfTheAuthor() async throws {
        let h = try await ReceiveHarness.make()
        let laptop = try h.connectedPeer()
        let phone = try h.connectedPeer(userID: laptop.userID, oneTimePrekey: 1)
        let channel = ReceivingChannel.group()
        // Only the phone's sender key is here: the laptop's message waits for its key.
        _ = try await h.ingest([try phone.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))], channel)
        let original = try laptop.group("typed on the laptop", channel: channel.id.rawValue, at: t(1))
        if case .pending = try await h.ingest([original], channel)[original.id] {} else { Issue.record("expected pending") }
        // PATCH keeps the laptop's sender_device_id; the envelope is the phone's.
        let edit = MessageEdit(id: original.id, channelID: channel.id, content: try editContent(by: phone, of: original.id.rawValue, text: "fixed on the phone", channel: channel),
                               editedAt: ServerTimestamp(microseconds: t(4)))
        #expect(try await h.pipeline.ingestEdit(edit, channel: channel).result == .decrypted)
        var item = try #require(try await h.reader.item(messageID: original.id))
        #expect(item.text == "fixed on the phone")
        #expect(item.editedAt == ServerTimestamp(microseconds: t(4)))
        #expect(try await h.store.pendingCount() == 0)

        // A message edited on the phone before this device saw it: the REST row names the laptop.
        let id = newID()
        let restRow = laptop.posted(try editContent(by: phone, of: id, text: "edited before we looked", channel: channel), kind: .group,
                                    channel: channel.id.rawValue, at: t(5), id: id, editedAt: t(6))
        #expect(try await h.ingest([restRow], channel)[MessageID(id)] == .decrypted)
        item = try #require(try await h.reader.item(messageID: MessageID(id)))
        #expect(item.text == "edited before we looked")
        #expect(item.editedAt == ServerTimestamp(microseconds: t(6)))
    }

    @Test("edited_at does not let another device of the author post under the first one's id: the payload must be an edit of the message")
    func editedMarkWithoutEditOfRefused() async throws {
        let h = try await ReceiveHarness.make()
        let laptop = try h.connectedPeer()
        let phone = try h.connectedPeer(userID: laptop.userID, oneTimePrekey: 1)
        let channel = ReceivingChannel.group()
        _ = try await h.ingest([try laptop.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0)), try phone.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))], channel)
        let posted = try phone.group("a plain post", channel: channel.id.rawValue, at: t(1))
        // The phone's post claimed for the laptop: refused as before, marked edited or not.
        let claimed = laptop.posted(posted.content, kind: .group, channel: channel.id.rawValue, at: t(1))
        #expect(try await h.ingest([claimed], channel)[claimed.id] == .undecryptable(.senderMismatch))
        let markedEdited = laptop.posted(posted.content, kind: .group, channel: channel.id.rawValue, at: t(2), editedAt: t(3))
        #expect(try await h.ingest([markedEdited], channel)[markedEdited.id] == .undecryptable(.editMismatch))
        // The refusals advanced no key: the genuine row still opens.
        #expect(try await h.ingest([posted], channel)[posted.id] == .decrypted)
    }
}
