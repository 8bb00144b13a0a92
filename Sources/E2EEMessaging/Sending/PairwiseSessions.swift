import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// This device's current pairwise sessions with the devices it sends to (docs/spec/protocol.md §2, §3):
/// loads each device's current session, or starts one with X3DH from the device's verified
/// bundle (always with its one-time prekey when the bundle has one, T4) and installs it, then
/// encrypts pairwise plaintexts and hands back the advanced states for the caller to commit
/// with the outgoing message. Callers hold the device's session lock throughout.
///
/// A broken ratchet restarts (§3.17): when a message from the device was refused as too far
/// ahead, the next send starts a new session with X3DH from the bundle the send just read,
/// instead of using the current one, which is archived — at most once per
/// ``ProtocolLimits/minRatchetRestartIntervalSeconds`` per device, on this device's clock
/// (``now``). A request that comes within that time waits for the first send after it.
struct PairwiseSessions: Sendable {
    let store: KeyStore
    let identity: E2EECrypto.IdentityKeyPair
    let random: AnyRandomSource
    let now: @Sendable () -> StoreTime

    /// A session ready to encrypt with.
    struct Loaded: Sendable {
        /// The remote device.
        let userID: String, deviceID: String
        /// The store's id of the session row.
        let sessionID: String
        /// The current state.
        var record: SessionRecord
    }

    /// The current session of every device, starting the missing ones and restarting those a
    /// refused message asked to restart, when due (§3.17).
    /// - Throws: ``ProtocolError`` when X3DH fails (identity mismatch, bad keys), key store errors.
    func prepare(_ devices: [RemoteDevice]) async throws -> [WireUUID: Loaded] {
        var loaded: [WireUUID: Loaded] = [:]
        for device in devices {
            let wire = try WireUUID(text: device.deviceID.rawValue)
            let userID = device.userID.rawValue, deviceID = device.deviceID.rawValue
            let (stored, restart) = try await store.read { [store] db in
                (try store.sessionStore.loadCurrentSession(userID: userID, deviceID: deviceID, db),
                 try store.sessionStore.loadRestart(userID: userID, deviceID: deviceID, db))
            }
            let time = now()
            let restarting = restart?.isDue(at: time) ?? false
            if let stored, !restarting {
                loaded[wire] = Loaded(userID: userID, deviceID: deviceID, sessionID: stored.id, record: SessionRecord(current: try SessionState(serialized: stored.state)))
                continue
            }
            let started = try X3DH.initiate(localIdentity: identity, bundle: device.bundle, pinnedIdentity: device.identity, using: random)
            let record = SessionRecord(current: started.state)
            // A restart installs the new session, archives the old one and records the restart
            // in one transaction, so the hourly limit holds across a crash or a restart.
            let id = restarting
                ? try await store.restartSession(userID: userID, deviceID: deviceID, state: started.state.serialized(), at: time)
                : try await store.installSession(userID: userID, deviceID: deviceID, state: started.state.serialized(), at: time)
            loaded[wire] = Loaded(userID: userID, deviceID: deviceID, sessionID: id, record: record)
        }
        return loaded
    }
}

/// Collects pairwise encryptions while an envelope is sealed: each call advances the device's
/// session (drawing each message's nonce from `random`), and ``updates`` are the states to
/// commit with the message.
struct PairwiseEncryptor {
    private(set) var sessions: [WireUUID: PairwiseSessions.Loaded]
    private let random: AnyRandomSource

    init(_ sessions: [WireUUID: PairwiseSessions.Loaded], random: AnyRandomSource) {
        self.sessions = sessions
        self.random = random
    }

    /// Encrypts `plaintext` for `device` in its current session.
    /// - Throws: ``MessagingError/encryptionFailed(_:)`` for a device without a session, the
    ///   ratchet's errors.
    mutating func encrypt(_ device: WireUUID, _ plaintext: SecretBytes) throws -> [UInt8] {
        guard var session = sessions[device] else { throw MessagingError.encryptionFailed("no session with device \(device.text)") }
        let result = try session.record.encrypt(plaintext, using: random)
        session.record = result.record
        sessions[device] = session
        return result.message
    }

    /// The advanced states, one per session used.
    var updates: [SessionUpdate] {
        // One stored row per ratchet state (the receive side reads archived states from their
        // own rows): only the current state advanced.
        sessions.values.map {
            SessionUpdate(userID: $0.userID, deviceID: $0.deviceID,
                          states: [SessionUpdate.State(sessionID: $0.sessionID, state: $0.record.current.serialized(), isCurrent: true)])
        }
    }
}
