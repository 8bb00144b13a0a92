/// Our own user's key as the store keeps it (schema `v20`, docs/spec/protocol.md §3 "State"):
/// this device's role and the store's mirror of the primary file. Public data only.
package struct OwnUserKeyRecord: Sendable, Equatable {
    /// This device's role under the key.
    public enum Role: String, Sendable, Equatable {
        /// This device holds the primary file and issues certificates.
        case primary
        /// This device carries a certificate from the primary.
        case linked
        /// The account has a key but this device is not linked under it.
        case unlinked
    }

    /// Why issuing stopped for good on this primary (docs/spec/protocol.md §10.12).
    public enum IssuingStop: String, Sendable, Equatable {
        /// A current certificate under our key that the log lacks.
        case anotherHolder
        /// The store's mirror is ahead of the file.
        case restoredFile
        /// The store says primary but no file is beside it.
        case fileMissing
        /// The user confirmed a reset made on another device.
        case resetElsewhere
    }

    /// The role.
    public var role: Role
    /// Our pinned user key (32 bytes).
    public var userKey: [UInt8]?
    /// The primary's device id.
    public var primaryDeviceID: String?
    /// This device's own certificate (104 bytes), the newest it adopted or issued.
    public var certificate: [UInt8]?
    /// The primary file's id (primary only).
    public var fileID: [UInt8]?
    /// The file's epoch when last saved.
    public var epoch: UInt32
    /// The file's log count when last saved.
    public var logCount: UInt64
    /// The file's trust counter when last saved.
    public var trustCounter: UInt64
    /// Why issuing stopped, if it did.
    public var issuingStopped: IssuingStop?
    /// When the key was created or adopted here (unix seconds).
    public var createdAt: Int64

    /// Creates the value.
    public init(role: Role, userKey: [UInt8]?, primaryDeviceID: String?, certificate: [UInt8]?, fileID: [UInt8]?, epoch: UInt32,
                logCount: UInt64, trustCounter: UInt64, issuingStopped: IssuingStop? = nil, createdAt: Int64) {
        self.role = role
        self.userKey = userKey
        self.primaryDeviceID = primaryDeviceID
        self.certificate = certificate
        self.fileID = fileID
        self.epoch = epoch
        self.logCount = logCount
        self.trustCounter = trustCounter
        self.issuingStopped = issuingStopped
        self.createdAt = createdAt
    }
}

/// An own device trusted under text 1.2 before the account had a key (docs/spec/protocol.md §3
/// "State"): a recipient until it is linked, removed, carries another key, or lapses.
package struct LegacyOwnDevice: Sendable, Equatable {
    /// The device.
    public var deviceID: String
    /// When it lapses (unix seconds).
    public var lapsesAt: Int64

    /// Creates the value.
    public init(deviceID: String, lapsesAt: Int64) {
        self.deviceID = deviceID
        self.lapsesAt = lapsesAt
    }
}
