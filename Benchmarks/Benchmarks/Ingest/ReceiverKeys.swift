import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// The receiving device's keys, made once: its identity, a signed prekey and one-time prekeys.
/// Every sample installs the same keys into a fresh store (as the account stores them), so the
/// same prebuilt envelopes decrypt in each sample.
struct ReceiverKeys: Sendable {
    let device: LocalDevice
    let signedPrekey: E2EECrypto.SignedPrekey
    /// One-time prekeys by the id the store gives them (ids count from 1 in a fresh store).
    let oneTimePrekeys: [E2EECrypto.OneTimePrekey]

    /// New keys for a device of `userID`, with `count` one-time prekeys.
    static func make(userID: String, oneTimePrekeys count: Int, now: Int64) throws -> ReceiverKeys {
        let identity = E2EECrypto.IdentityKeyPair()
        let device = LocalDevice(userID: UserID(userID), deviceID: DeviceID(UUID().uuidString), identity: identity)
        let signedPrekey = try E2EECrypto.SignedPrekey(id: 1, identity: identity, createdAt: now)
        let oneTimePrekeys = try (1...count).map { try E2EECrypto.OneTimePrekey(id: UInt32($0)) }
        return ReceiverKeys(device: device, signedPrekey: signedPrekey, oneTimePrekeys: oneTimePrekeys)
    }

    /// The bundle the server would hand a sender, with one-time prekey `index`.
    func bundle(oneTimePrekey index: Int) throws -> PrekeyBundle {
        guard oneTimePrekeys.indices.contains(index) else { throw SetupFailed("no one-time prekey \(index)") }
        return try PrekeyBundle(deviceID: device.deviceID.rawValue, identityKey: device.identity.publicIdentity.base64,
                                signedPreKey: signedPrekey.published.base64, signedPreKeySignature: signedPrekey.signatureBase64,
                                oneTimePreKey: oneTimePrekeys[index].published.base64)
    }

    /// Stores the device in `store` (a fresh one) exactly as the account does: its account row
    /// and identity keys (`Account.install`, what register or login leaves), the signed prekey
    /// as current, the one-time prekeys published — so that `Account.open` opens it.
    func install(into store: KeyStore) async throws {
        let now = StoreTime(microseconds: signedPrekey.createdAt * 1_000_000)
        try await Account.install(device, serverURL: "https://ingest.invalid", into: store, at: now)
        try await store.rotateSignedPrekey(E2EEKeyStore.SignedPrekey(
            id: signedPrekey.id, publicKey: signedPrekey.keyPair.publicKey.rawRepresentation, privateKey: signedPrekey.keyPair.rawRepresentation,
            signature: signedPrekey.signature, isCurrent: true, createdAt: now))
        let keys = oneTimePrekeys
        let stored = try await store.addOneTimePrekeys(count: keys.count, now: now) { id in
            guard let key = keys.first(where: { $0.id == id }) else { throw SetupFailed("one-time prekey ids differ") }
            return OneTimePrekeyMaterial(publicKey: key.keyPair.publicKey.rawRepresentation, privateKey: key.keyPair.rawRepresentation)
        }
        try await store.markOneTimePrekeysPublished(ids: stored.map(\.id))
    }
}
