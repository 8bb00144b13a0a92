/// The kinds of stored record, named in ``KeyStoreError`` cases.
public enum KeyStoreRecordKind: String, Sendable, Equatable {
    /// The account row, this device's identity keys.
    case account, identityKeys
    /// Prekeys and pairwise sessions.
    case signedPrekey, oneTimePrekey, session
    /// Sender-key states and their skipped keys.
    case ownSenderKey, receiverSenderKey, skippedSenderKey
    /// Pinned identities of other devices.
    case remoteIdentity
    /// Timeline rows, pending ciphertexts, outbox rows, sync cursors.
    case timelineMessage, pendingCiphertext, outboxMessage, syncCursor
    /// A channel of the messaging layer.
    case channel
    /// The store's metadata row.
    case metadata
}

/// Every failure of the key store that is not a plain SQLite error (those surface as GRDB's
/// `DatabaseError`).
///
/// No case ever carries secret bytes: identifiers in cases are public ids (server ids, device
/// ids, prekey ids), never keys or plaintexts.
public enum KeyStoreError: Error, Sendable, Equatable {
    /// The store key (or the key derived from the passphrase) does not open this store's
    /// key-check value. Nothing in the file was read or changed.
    case wrongKey
    /// A store key must be exactly 32 bytes.
    case invalidKeyLength(actual: Int)
    /// The store was created with a passphrase but opened with a raw key, or the reverse.
    case keySourceMismatch(storeUses: StoreKeySource)
    /// The file is a SQLite database that is not an E2EEKeyStore store.
    case notAKeyStore
    /// The file was written by a newer version of the store (an unknown migration was applied).
    case schemaFromNewerVersion
    /// A sealed value carries a format version this code does not know.
    case unsupportedSealedVersion(UInt8)
    /// A sealed value failed to authenticate: it was altered, truncated, or moved from another
    /// table, column or row.
    case sealedValueRejected(table: String, column: String)
    /// A public column holds a value outside its documented domain.
    case corruptColumn(table: String, column: String)
    /// An operation named a record that does not exist.
    case missingRecord(KeyStoreRecordKind, id: String)
    /// An operation is not allowed in the record's current state (for instance consuming a
    /// one-time prekey twice, or marking a message sent twice).
    case invalidTransition(KeyStoreRecordKind, id: String, from: String, to: String)
    /// A caller-supplied value is outside what the store accepts (for instance a negative count).
    case invalidArgument(String)
    /// The Argon2id cost a store file (or a caller creating one) asks for is outside
    /// `ProtocolLimits.storeKDFIterationsRange` / `storeKDFMemoryKiBRange`; refused before
    /// any derivation runs, nothing touched.
    case kdfParametersOutOfBounds(iterations: UInt64, memoryKiB: UInt64)
    /// The store's file could not be given owner-only permissions (`0600`).
    case insecureFilePermissions(path: String)
}

/// How a store's key is obtained; recorded in the file's metadata.
public enum StoreKeySource: String, Sendable, Equatable {
    /// The app supplies 32 bytes (from its keychain).
    case raw
    /// The key is derived from a passphrase with Argon2id; salt and parameters are in the file.
    case passphrase
}
