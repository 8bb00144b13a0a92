// The store and crypto types that appear in `Account`'s public API, re-exported so that an app
// needs only `import E2EEMessaging` (and E2EETransport to reach a server).
//
// Why scoped `@_exported import`s and not typealiases: a typealias named like the type it
// aliases makes the name ambiguous in a file that imports both modules (tests, the tool), and
// re-declaring each type would duplicate it. Why not `@_exported import E2EEKeyStore` whole:
// that would put the store's raw reads and writes, its per-kind stores and its receive-path
// records in front of every app. Only what an app opens, configures, reads or catches is listed;
// add a type here when it appears in a public signature of this module.

// Opening the store with the key from the keychain, and the errors opening can throw.
@_exported import class E2EEKeyStore.KeyStore
@_exported import struct E2EEKeyStore.StoreKey
@_exported import enum E2EEKeyStore.KeyStoreError
// Times in configuration and reports.
@_exported import struct E2EEKeyStore.StoreTime
// The outbox: the states and kinds in send reports, outbox items, timeline items and delivery
// events (the store's record, with its plaintext, stays out of sight).
@_exported import enum E2EEKeyStore.OutboxState
@_exported import enum E2EEKeyStore.OutboxKind
// A channel's recipient setting.
@_exported import enum E2EEKeyStore.RecipientPolicy

// The keychain bytes a store key is made of, this device's identity, randomness for
// configuration, and safety numbers.
@_exported import struct E2EECrypto.SecretBytes
@_exported import struct E2EECrypto.IdentityBlob
@_exported import protocol E2EECrypto.RandomSource
@_exported import struct E2EECrypto.SystemRandom
@_exported import struct E2EECrypto.SafetyNumber
