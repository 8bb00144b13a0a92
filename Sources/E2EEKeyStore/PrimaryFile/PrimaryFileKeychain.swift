import E2EECrypto
import Foundation

/// Where the key sealing the primary file comes from (docs/spec/protocol.md §3 "State"): an
/// item the app keeps for this installation only — on Apple platforms a keychain item with a
/// `…ThisDeviceOnly` accessibility, never synced and never in a backup. The core never uses the
/// store key for the file: a store restored from a backup must not open a file it did not
/// travel with.
///
/// The item is named by the core (`e2ee-primary-file/<user id>`); the same item opens
/// the file again after a restart.
public protocol PrimaryFileKeychain: Sendable {
    /// The 32-byte key of `item`. With `create` true and no key kept yet, the keychain makes one
    /// (random, or derived as the tool does) and keeps it; with `create` false and no key, it
    /// returns `nil`.
    /// - Throws: whatever the keychain throws when it cannot be read or written.
    func key(item: String, create: Bool) throws -> SecretBytes?
}

/// The key source of an app without a keychain (the `e2ee-tool`): the file key is derived from
/// the store passphrase with Argon2id under a salt of its own, `SHA-256("e2ee-primary-file-key-v1"
/// || item)[0..<16]`, so it is never the store key (whose salt lives in the store) and differs
/// per item. Nothing is kept on disk: the same passphrase gives the same key again (each item is
/// derived once per value of this type, then held in memory, wiped when it is released).
public struct PassphrasePrimaryFileKeychain: PrimaryFileKeychain {
    /// The label the salt is derived under.
    public static let saltLabel = Array("e2ee-primary-file-key-v1".utf8)

    private let passphrase: SecretBytes
    private let parameters: Argon2id.Parameters
    private let derived = DerivedKeys()

    /// A key source over `passphrase`, at the Argon2id cost `parameters` (pass the store's own,
    /// so the file is no cheaper to guess than the store beside it).
    public init(passphrase: SecretBytes, parameters: Argon2id.Parameters = .moderate) {
        self.passphrase = passphrase
        self.parameters = parameters
    }

    /// The derived key (never `nil`: a passphrase always gives one).
    /// - Throws: `CryptoError` when Argon2id cannot run.
    public func key(item: String, create: Bool) throws -> SecretBytes? {
        try derived.key(item: item) { try derive(item: item) }
    }

    private func derive(item: String) throws -> SecretBytes {
        let salt = Array(SHA256.hash(Self.saltLabel + Array(item.utf8)).prefix(Argon2id.saltLength))
        return try Argon2id.deriveKey(password: passphrase, salt: salt, parameters: parameters, outputLength: PrimaryFile.keyLength)
    }
}

/// The keys a ``PassphrasePrimaryFileKeychain`` derived, by item (Argon2id runs once per item).
private final class DerivedKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [String: SecretBytes] = [:]

    func key(item: String, derive: () throws -> SecretBytes) throws -> SecretBytes {
        lock.lock()
        defer { lock.unlock() }
        if let key = keys[item] { return key }
        let key = try derive()
        keys[item] = key
        return key
    }
}
