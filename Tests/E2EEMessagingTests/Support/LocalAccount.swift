import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging

/// Our device in a test: identity, a signed prekey and one-time prekeys stored in a real
/// KeyStore exactly as the account stores them (private keys as their 32-byte scalars), and
/// the bundle the server would list for it.
struct LocalAccount: Sendable {
    let device: LocalDevice
    let signedPrekey: E2EECrypto.SignedPrekey
    /// The stored one-time prekeys (public keys and ids).
    let oneTimePrekeys: [E2EEKeyStore.OneTimePrekey]

    /// Makes the keys and stores the prekeys in `store`.
    static func make(store: KeyStore, userID: String = newID(), deviceID: String = newID(), oneTimePrekeys count: Int = 10,
                     now: StoreTime) async throws -> LocalAccount {
        let identity = E2EECrypto.IdentityKeyPair()
        let seconds = now.microseconds / 1_000_000
        let spk = try E2EECrypto.SignedPrekey(id: 7, identity: identity, createdAt: seconds)
        try await store.rotateSignedPrekey(E2EEKeyStore.SignedPrekey(
            id: spk.id, publicKey: spk.keyPair.publicKey.rawRepresentation, privateKey: spk.keyPair.rawRepresentation,
            signature: spk.signature, isCurrent: true, createdAt: StoreTime(microseconds: seconds * 1_000_000)))
        let opks = try await store.addOneTimePrekeys(count: count, now: now) { id in
            let key = try E2EECrypto.OneTimePrekey(id: id)
            return OneTimePrekeyMaterial(publicKey: key.keyPair.publicKey.rawRepresentation, privateKey: key.keyPair.rawRepresentation)
        }
        try await store.markOneTimePrekeysPublished(ids: opks.map(\.id))
        return LocalAccount(device: LocalDevice(userID: UserID(userID), deviceID: DeviceID(deviceID), identity: identity), signedPrekey: spk, oneTimePrekeys: opks)
    }

    /// The bundle the server hands out for this device, with the one-time prekey at `index`
    /// (nil: none left).
    func bundle(oneTimePrekey index: Int? = 0) throws -> PrekeyBundle {
        let opk = try index.map { index -> String in
            guard oneTimePrekeys.indices.contains(index) else { throw SupportError("no one-time prekey \(index)") }
            let key = oneTimePrekeys[index]
            let id = key.id
            let bytes: [UInt8] = [0x01, UInt8(id >> 24 & 0xff), UInt8(id >> 16 & 0xff), UInt8(id >> 8 & 0xff), UInt8(id & 0xff)] + key.publicKey
            return Base64.encode(bytes)
        }
        return try PrekeyBundle(deviceID: device.deviceID.rawValue, identityKey: device.identity.publicIdentity.base64,
                                signedPreKey: signedPrekey.published.base64, signedPreKeySignature: signedPrekey.signatureBase64, oneTimePreKey: opk)
    }

    /// Encrypts a reply to `peer` with our stored session and stores the advanced record (what
    /// the sending side does), returning the pairwise message for the peer to decrypt.
    func reply(to peer: RemotePeer, store: KeyStore) async throws -> [UInt8] {
        guard let stored = try await store.currentSession(userID: peer.userID, deviceID: peer.deviceID) else { throw SupportError("no session") }
        let record = SessionRecord(current: try SessionState(serialized: stored.state))
        let encryption = try record.encrypt(SecretBytes(copying: [0x01] + [UInt8](repeating: 7, count: 64)))
        try await store.write { db in
            try store.sessionStore.storeUpdate(
                SessionUpdate(userID: peer.userID, deviceID: peer.deviceID,
                              states: [SessionUpdate.State(sessionID: stored.id, state: encryption.record.current.serialized(), isCurrent: true)]),
                at: .now(), db)
        }
        return encryption.message
    }
}

extension LocalAccount {
    /// The same device's keys stored in another (fresh) store: a second copy of our device
    /// state, for scenarios that need a message made before the store saw anything.
    func install(into store: KeyStore) async throws {
        try await store.rotateSignedPrekey(E2EEKeyStore.SignedPrekey(
            id: signedPrekey.id, publicKey: signedPrekey.keyPair.publicKey.rawRepresentation, privateKey: signedPrekey.keyPair.rawRepresentation,
            signature: signedPrekey.signature, isCurrent: true, createdAt: StoreTime(microseconds: signedPrekey.createdAt * 1_000_000)))
        let keys = oneTimePrekeys
        let stored = try await store.addOneTimePrekeys(count: keys.count, now: StoreTime(microseconds: 0)) { id in
            guard let key = keys.first(where: { $0.id == id }) else { throw SupportError("one-time prekey ids differ") }
            return OneTimePrekeyMaterial(publicKey: key.publicKey, privateKey: key.privateKey)
        }
        try await store.markOneTimePrekeysPublished(ids: stored.map(\.id))
    }
}
