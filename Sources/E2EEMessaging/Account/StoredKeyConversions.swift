import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The one place where protocol key types become key-store records and back (the two modules
/// name their types alike: the protocol's carry behaviour, the store's carry columns).
enum StoredKeyConversions {
    /// The store record of this device's identity keys.
    static func record(_ keys: E2EECrypto.IdentityKeyPair, createdAt: StoreTime) -> E2EEKeyStore.IdentityKeyPair {
        E2EEKeyStore.IdentityKeyPair(
            identityPublic: keys.dhKey.publicKey.rawRepresentation, identityPrivate: keys.dhKey.rawRepresentation,
            signingPublic: keys.signingKey.publicKey.rawRepresentation, signingPrivate: keys.signingKey.seed, createdAt: createdAt
        )
    }

    /// The protocol identity keys from their record.
    /// - Throws: ``E2EECrypto/CryptoError`` for a record of the wrong shape.
    static func identity(_ record: E2EEKeyStore.IdentityKeyPair) throws -> E2EECrypto.IdentityKeyPair {
        E2EECrypto.IdentityKeyPair(dhKey: try X25519.PrivateKey(rawRepresentation: record.identityPrivate),
                                   signingKey: try Ed25519.PrivateKey(seed: record.signingPrivate))
    }

    /// The store record of a signed prekey.
    static func record(_ prekey: E2EECrypto.SignedPrekey, isCurrent: Bool) -> E2EEKeyStore.SignedPrekey {
        E2EEKeyStore.SignedPrekey(
            id: prekey.id, publicKey: prekey.keyPair.publicKey.rawRepresentation, privateKey: prekey.keyPair.rawRepresentation,
            signature: prekey.signature, isCurrent: isCurrent, createdAt: StoreTime(microseconds: prekey.createdAt * 1_000_000)
        )
    }

    /// The protocol signed prekey from its record.
    /// - Throws: ``E2EECrypto/CryptoError`` for a record of the wrong shape.
    static func signedPrekey(_ record: E2EEKeyStore.SignedPrekey) throws -> E2EECrypto.SignedPrekey {
        E2EECrypto.SignedPrekey(restoringID: record.id, keyPair: try X25519.PrivateKey(rawRepresentation: record.privateKey),
                                signature: record.signature, createdAt: record.createdAt.microseconds / 1_000_000)
    }

    /// The record of a stored signed prekey carrying `certificate` (`signed_pre_key`, unsigned).
    /// - Throws: ``E2EECrypto/CryptoError`` for a public key of the wrong length.
    static func record(_ prekey: E2EEKeyStore.SignedPrekey, certificate: DeviceCertificate) throws -> SignedPrekeyRecord {
        SignedPrekeyRecord(id: prekey.id, publicKey: try X25519.PublicKey(rawRepresentation: prekey.publicKey), certificate: certificate)
    }

    /// The certificate to publish from its stored bytes (`nil`: the zero certificate).
    /// - Throws: ``E2EECrypto/ProtocolError`` for stored bytes that no longer parse.
    static func certificate(_ stored: [UInt8]?) throws -> DeviceCertificate {
        try stored.map(DeviceCertificate.init(bytes:)) ?? .zero
    }

    /// The public form of a stored one-time prekey (one entry of `one_time_pre_keys`).
    /// - Throws: ``E2EECrypto/CryptoError`` for a public key of the wrong length.
    static func published(_ record: E2EEKeyStore.OneTimePrekey) throws -> PublishedOneTimePrekey {
        PublishedOneTimePrekey(id: record.id, publicKey: try X25519.PublicKey(rawRepresentation: record.publicKey))
    }

    /// The protocol one-time prekey from its record.
    /// - Throws: ``E2EECrypto/CryptoError`` for a record of the wrong shape.
    static func oneTimePrekey(_ record: E2EEKeyStore.OneTimePrekey) throws -> E2EECrypto.OneTimePrekey {
        E2EECrypto.OneTimePrekey(restoringID: record.id, keyPair: try X25519.PrivateKey(rawRepresentation: record.privateKey),
                                 consumedAt: record.consumedAt.map { $0.microseconds / 1_000_000 })
    }
}
