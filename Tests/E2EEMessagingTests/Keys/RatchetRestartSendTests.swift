import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

/// The sending half of docs/spec/protocol.md §3.17, against a real receiving device: a restart
/// asked by a refused message is a fresh X3DH at the next send, the old session archived, at
/// most once an hour per device on the sender's clock; the receiver takes the new prekey
/// message and still reads the old session.
@Suite("Send: a broken ratchet restarts at the next send")
struct RatchetRestartSendTests {
    /// Bob's device, sending through the account's ``PairwiseSessions`` with its own store and clock.
    struct Sender {
        let store: KeyStore
        let identity = E2EECrypto.IdentityKeyPair()
        let userID = newID()
        let deviceID = newID()
        let clock = TestClock()

        var sessions: PairwiseSessions {
            PairwiseSessions(store: store, identity: identity, random: AnyRandomSource(base: SystemRandom()), now: clock.closure)
        }

        /// A DM of `text` to the harness's device, its bundle carrying one-time prekey `opk`
        /// (what the send's fresh listing hands out); the advanced session is stored as a send
        /// commits it. Returns the row and our entry's pairwise message.
        func dm(_ text: String, to h: ReceiveHarness, opk: Int, channel: ReceivingChannel, at micros: Int64) async throws -> (ServerMessage, PairwiseMessage) {
            let local = h.account.device
            let device = RemoteDevice(userID: local.userID, deviceID: local.deviceID, identity: local.identity.publicIdentity,
                                      bundle: try h.account.bundle(oneTimePrekey: opk))
            var encryptor = PairwiseEncryptor(try await sessions.prepare([device]), random: AnyRandomSource(base: SystemRandom()))
            let payload = try MessagePayload(id: WireUUID(text: newID()), timestamp: 1_700_000_000_000, text: text).encodedJSON()
            let envelope = try DMEnvelope.seal(payload: payload, channel: WireUUID(text: channel.id.rawValue), senderDevice: WireUUID(text: deviceID),
                                               recipients: [WireUUID(text: local.deviceID.rawValue)], using: SystemRandom()) { device, plaintext in
                try encryptor.encrypt(device, plaintext)
            }
            let updates = encryptor.updates
            try await store.write { db in for update in updates { try store.sessionStore.storeUpdate(update, at: clock.now, db) } }
            let row = ServerMessage(id: MessageID(newID()), channelID: channel.id, senderID: UserID(userID), senderDeviceID: DeviceID(deviceID),
                                    content: Envelope.dm(envelope).content(), contentType: EnvelopeKind.dm.contentType, protocolVersion: 2,
                                    replyToID: nil, editedAt: nil, createdAt: ServerTimestamp(microseconds: micros))
            return (row, try PairwiseMessage(bytes: try envelope.pairwiseMessage(for: WireUUID(text: local.deviceID.rawValue))))
        }

        /// Records a restart request from the harness's device, as a refused message does.
        func askRestart(of h: ReceiveHarness) async throws {
            let request = SessionRestartRequest(userID: h.account.device.userID.rawValue, deviceID: h.deviceID, requestedAt: clock.now)
            try await store.write { db in try store.sessionStore.requestRestart(request, db) }
        }

        func sessionIDs(with h: ReceiveHarness) async throws -> [String] {
            try await store.sessions(userID: h.account.device.userID.rawValue, deviceID: h.deviceID, limit: 50).map(\.id)
        }
    }

    private static func baseKey(_ message: PairwiseMessage) -> X25519.PublicKey? {
        guard case .prekey(let prekey) = message else { return nil }
        return prekey.baseKey
    }

    @Test("K2 at the sender: a fresh X3DH at the next send, the old session archived; the receiver takes it and still reads the old one")
    func restartAtNextSend() async throws {
        let h = try await ReceiveHarness.make()
        let bob = Sender(store: try KeyStore.inMemory())
        h.listed.list(userID: bob.userID, deviceID: bob.deviceID, identity: bob.identity.publicIdentity)
        let channel = ReceivingChannel.dm()

        let (first, firstEntry) = try await bob.dm("one", to: h, opk: 0, channel: channel, at: t(1))
        #expect(try await h.ingest([first], channel)[first.id] == .decrypted)
        let (late, _) = try await bob.dm("late, old session", to: h, opk: 0, channel: channel, at: t(2))
        let oldSessions = try await bob.sessionIDs(with: h)
        #expect(oldSessions.count == 1)

        try await bob.askRestart(of: h)
        let (second, secondEntry) = try await bob.dm("two", to: h, opk: 1, channel: channel, at: t(3))
        let newBase = try #require(Self.baseKey(secondEntry))
        #expect(newBase != Self.baseKey(firstEntry), "a fresh X3DH")
        let bobSessions = try await bob.sessionIDs(with: h)
        #expect(bobSessions.count == 2 && bobSessions.last == oldSessions.first, "the old session archived, not removed")
        let done = try await bob.store.read { db in try bob.store.sessionStore.loadRestart(userID: h.account.device.userID.rawValue, deviceID: h.deviceID, db) }
        #expect(done == SessionRestart(userID: h.account.device.userID.rawValue, deviceID: h.deviceID, requestedAt: nil, restartedAt: bob.clock.now))

        // The receiver installs the new session (archiving its old one) and still reads a
        // message of the old session that arrives after it.
        #expect(try await h.ingest([second], channel)[second.id] == .decrypted)
        let aliceSessions = try await h.store.sessions(userID: bob.userID, deviceID: bob.deviceID, limit: 50)
        #expect(aliceSessions.count == 2)
        #expect(try SessionState(serialized: try #require(aliceSessions.first).state).baseKey == newBase)
        #expect(try await h.ingest([late], channel)[late.id] == .decrypted)
        #expect(try await h.timeline(channel).compactMap(\.text) == ["one", "late, old session", "two"])
    }

    @Test("at most hourly on the sender's clock: a request within the hour waits for the first send after it; none asked, none done")
    func atMostHourly() async throws {
        let h = try await ReceiveHarness.make()
        let bob = Sender(store: try KeyStore.inMemory())
        h.listed.list(userID: bob.userID, deviceID: bob.deviceID, identity: bob.identity.publicIdentity)
        let channel = ReceivingChannel.dm()
        let hour = ProtocolLimits.minRatchetRestartIntervalSeconds

        _ = try await bob.dm("one", to: h, opk: 0, channel: channel, at: t(1))
        try await bob.askRestart(of: h)
        let (restarted, restartedEntry) = try await bob.dm("restarted", to: h, opk: 1, channel: channel, at: t(2))
        let firstRestart = try #require(Self.baseKey(restartedEntry))

        bob.clock.advance(seconds: hour / 2)
        try await bob.askRestart(of: h)
        let (within, withinEntry) = try await bob.dm("within the hour", to: h, opk: 2, channel: channel, at: t(3))
        #expect(Self.baseKey(withinEntry) == firstRestart, "no second restart within the hour")

        bob.clock.advance(seconds: hour / 2)
        let (after, afterEntry) = try await bob.dm("an hour on", to: h, opk: 2, channel: channel, at: t(4))
        let secondRestart = try #require(Self.baseKey(afterEntry))
        #expect(secondRestart != firstRestart, "the waiting request is honoured once the hour has passed")

        bob.clock.advance(seconds: hour * 3)
        let (quiet, quietEntry) = try await bob.dm("nothing asked", to: h, opk: 3, channel: channel, at: t(5))
        #expect(Self.baseKey(quietEntry) == secondRestart)
        #expect(try await bob.sessionIDs(with: h).count == 3)

        let outcomes = try await h.ingest([restarted, within, after, quiet], channel)
        #expect(outcomes.values.allSatisfy { $0 == .decrypted })
    }
}
