import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

/// Issue 16, item 3: retention exactly as docs/spec/protocol.md §1, §2 and §4 state it, on a manual clock.
/// At exactly the limit a key is kept; one second after it, wiped.
@Suite("Key retention")
struct KeyRetentionTests {
    private static let day: Int64 = 24 * 3600

    @Test("§4: a receiving sender-key state is kept 7 days after its last use, wiped after, and only once another key_id exists")
    func senderKeyStates() async throws {
        let h = try await ReceiveHarness.make()
        let retention = KeyRetention(store: h.store, now: h.clock.closure)
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        let first = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        #expect(try await h.ingest([first], channel)[first.id] == .keyDistribution)
        let oldKey = SenderKeyAddress(channelID: channel.id.rawValue, senderDeviceID: peer.deviceID, keyID: try #require(peer.senderKeys[channel.id.rawValue]?.keyID))

        // Alone, the state is kept however old it gets.
        h.clock.advance(seconds: 30 * Self.day)
        #expect(try await retention.run().senderKeyStates == 0)
        #expect(try await h.store.receiverSenderKey(oldKey) != nil)

        // It decrypts a message now (its last use), then the sender rotates.
        let message = try peer.group("last use", channel: channel.id.rawValue, at: t(1))
        #expect(try await h.ingest([message], channel)[message.id] == .decrypted)
        let rotated = SenderKeySendingState.generate(channel: try WireUUID(text: channel.id.rawValue), retainedKeyIDs: [oldKey.keyID], using: SystemRandom())
        peer.setSenderKey(rotated, channel: channel.id.rawValue)
        let second = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(2))
        #expect(try await h.ingest([second], channel)[second.id] == .keyDistribution)
        let newKey = SenderKeyAddress(channelID: channel.id.rawValue, senderDeviceID: peer.deviceID, keyID: rotated.keyID)

        h.clock.advance(seconds: 7 * Self.day)
        #expect(try await retention.run().senderKeyStates == 0, "exactly 7 days after its last use: kept")
        #expect(try await h.store.receiverSenderKey(oldKey) != nil)
        h.clock.advance(seconds: 1)
        #expect(try await retention.run().senderKeyStates == 1, "after 7 days: wiped")
        #expect(try await h.store.receiverSenderKey(oldKey) == nil)
        // The newest state of the sender device stays, however long it is unused.
        h.clock.advance(seconds: 60 * Self.day)
        #expect(try await retention.run().senderKeyStates == 0)
        #expect(try await h.store.receiverSenderKey(newKey) != nil)
    }

    @Test("§1/§2: a replaced signed prekey is kept 30 days after its replacement, then wiped with the EK_A accepted under it")
    func signedPrekeys() async throws {
        let clock = TestClock()
        let store = try KeyStore.inMemory()
        let local = try await LocalAccount.make(store: store, now: clock.now)
        let retention = KeyRetention(store: store, now: clock.closure)
        let acceptedEK = [UInt8](repeating: 9, count: 32)
        try await store.write { db in
            try store.signedPrekeyStore.acceptEphemeralKey(acceptedEK, signedPrekeyID: local.signedPrekey.id, at: clock.now, db)
        }
        // Unreplaced, the current prekey is never wiped.
        clock.advance(seconds: 90 * Self.day)
        #expect(try await retention.run().signedPrekeys == 0)

        let seconds = clock.now.microseconds / 1_000_000
        let next = try E2EECrypto.SignedPrekey(id: 8, identity: local.device.identity, createdAt: seconds)
        try await store.rotateSignedPrekey(E2EEKeyStore.SignedPrekey(
            id: next.id, publicKey: next.keyPair.publicKey.rawRepresentation, privateKey: next.keyPair.rawRepresentation,
            signature: next.signature, isCurrent: true, createdAt: StoreTime(microseconds: seconds * 1_000_000)))

        clock.advance(seconds: 30 * Self.day)
        #expect(try await retention.run().signedPrekeys == 0, "exactly 30 days after its replacement: kept")
        #expect(try await store.signedPrekeys().map(\.id).sorted() == [7, 8])
        clock.advance(seconds: 1)
        #expect(try await retention.run().signedPrekeys == 1)
        #expect(try await store.signedPrekeys().map(\.id) == [8])
        let stillAccepted = try await store.read { db in try store.signedPrekeyStore.isEphemeralKeyAccepted(acceptedEK, db) }
        #expect(!stillAccepted, "the accepted set goes with its signed prekey (§2)")
    }

    @Test("§2: a consumed one-time prekey is kept 7 days after consumption, then wiped; unconsumed ones stay")
    func oneTimePrekeys() async throws {
        let clock = TestClock()
        let store = try KeyStore.inMemory()
        let local = try await LocalAccount.make(store: store, oneTimePrekeys: 3, now: clock.now)
        let retention = KeyRetention(store: store, now: clock.closure)
        try await store.consumeOneTimePrekey(id: local.oneTimePrekeys[0].id, at: clock.now)
        clock.advance(seconds: 7 * Self.day)
        #expect(try await retention.run().oneTimePrekeys == 0, "exactly 7 days after consumption: kept")
        #expect(try await store.oneTimePrekeyCount(state: .consumed) == 1)
        clock.advance(seconds: 1)
        #expect(try await retention.run().oneTimePrekeys == 1)
        #expect(try await store.oneTimePrekeyCount(state: .consumed) == 0)
        #expect(try await store.oneTimePrekeyCount(state: .published) == 2)
    }

    @Test("retention runs when an account is opened (after a restart)")
    func runsOnOpen() async throws {
        let clock = TestClock()
        let store = try KeyStore.inMemory()
        let local = try await LocalAccount.make(store: store, oneTimePrekeys: 2, now: clock.now)
        try await store.storeAccount(AccountRecord(serverURL: "http://127.0.0.1:1", userID: local.device.userID.rawValue, deviceID: local.device.deviceID.rawValue,
                                                   accessToken: nil, refreshToken: nil, updatedAt: clock.now))
        try await store.consumeOneTimePrekey(id: local.oneTimePrekeys[0].id, at: clock.now)
        clock.advance(seconds: 7 * Self.day + 1)
        _ = try await Account.open(server: CountingServer(), store: store, configuration: AccountConfiguration(now: clock.closure))
        #expect(try await store.oneTimePrekeyCount(state: .consumed) == 0)
        #expect(try await store.oneTimePrekeyCount(state: .published) == 1)
    }

    @Test("§10.8: a waiting prekey message's signed and one-time prekey are read from its envelope and kept while it waits, past their wipe dates")
    func waitingPrekeyMessageKeepsItsPrekeys() async throws {
        let clock = TestClock()
        let store = try KeyStore.inMemory()
        let local = try await LocalAccount.make(store: store, oneTimePrekeys: 2, now: clock.now)
        let device = try WireUUID(text: local.device.deviceID.rawValue)
        let peer = RemotePeer()
        try peer.connect(to: local.bundle(oneTimePrekey: 0))
        let channel = newID()
        let message = try peer.dm("waits", channel: channel, to: [local.device.deviceID.rawValue], at: t(0))
        let opk = local.oneTimePrekeys[0].id
        #expect(KeyRetention.prekeys(namedBy: message.content, for: device) == NamedPrekeys(signedPrekeyIDs: [7], oneTimePrekeyIDs: [opk]))
        #expect(KeyRetention.prekeys(namedBy: message.content, for: try WireUUID(text: newID())) == nil, "no entry for that device")
        #expect(KeyRetention.prekeys(namedBy: "not base64 at all", for: device) == nil)

        // The message waits for its device to be linked; SPK 7 is replaced, and the OPK counts as handed out.
        let row = TimelineMessage(messageID: message.id.rawValue, channelID: channel, senderUserID: peer.userID, senderDeviceID: peer.deviceID,
                                  createdAt: StoreTime(microseconds: t(0)), contentHash: SHA256.hash(Array(message.content.utf8)), state: .pendingKey, plaintext: nil)
        _ = try await store.storeReceiveBatch([ReceiveWrite(action: .pending(row, content: message.content, waitingFor: "unlinked:\(peer.userID)/\(peer.deviceID)",
                                                                            receivedAt: clock.now), facts: ReceivedFacts(kind: .message))])
        let seconds = clock.now.microseconds / 1_000_000
        let next = try E2EECrypto.SignedPrekey(id: 8, identity: local.device.identity, createdAt: seconds)
        try await store.rotateSignedPrekey(E2EEKeyStore.SignedPrekey(
            id: next.id, publicKey: next.keyPair.publicKey.rawRepresentation, privateKey: next.keyPair.rawRepresentation,
            signature: next.signature, isCurrent: true, createdAt: StoreTime(microseconds: seconds * 1_000_000)))
        try await store.consumeOneTimePrekey(id: opk, at: clock.now)

        // 36 days on, both are past their wipe dates (30 and 7 days): kept for the waiting message.
        clock.advance(seconds: 36 * Self.day)
        let kept = KeyRetention(store: store, now: clock.closure, device: device)
        #expect(try await kept.run() == RetentionWipe(signedPrekeys: 0, oneTimePrekeys: 0, senderKeyStates: 0))
        #expect(try await store.signedPrekeys().map(\.id).sorted() == [7, 8])
        #expect(try await store.oneTimePrekeyCount(state: .consumed) == 1)
        // Retention that does not read the waiting messages (no device) wipes both.
        #expect(try await KeyRetention(store: store, now: clock.closure).run() == RetentionWipe(signedPrekeys: 1, oneTimePrekeys: 1, senderKeyStates: 0))
        #expect(try await store.signedPrekeys().map(\.id) == [8])
    }
}
