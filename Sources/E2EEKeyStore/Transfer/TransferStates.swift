/// Where a stored transfer stands (docs/spec/protocol.md §11.6).
package enum TransferStatus: String, Sendable, Equatable {
    /// Sending or receiving; resumed at start-up.
    case running
    /// Complete: the last acknowledgement was sent or received.
    case done
    /// Failed (a timeout, a mismatch, a rollback, the other side's cancel); ``OutgoingTransferState/failure`` says why.
    case failed
    /// Cancelled by the user on this side.
    case cancelled
}

/// The primary's stored state of one transfer it sends (docs/spec/protocol.md §11.3–§11.4),
/// store `v23`. Times are microseconds since 1970; indexes as §11.4 numbers them.
package struct OutgoingTransferState: Sendable, Equatable {
    package var transferID: String
    /// The granted device it goes to.
    package var deviceID: String
    /// The transfer channel.
    package var channelID: String
    package var status: TransferStatus
    package var failure: String?
    /// Manifest 1 as its link plaintext's bytes (public: counts and digest).
    package var manifest1: [UInt8]
    /// Manifest 2, once phase 2 is fixed.
    package var manifest2: [UInt8]?
    /// Every index below this was sent once.
    package var sentUpTo: UInt32
    /// The highest acknowledgement counted (never above ``sentUpTo``).
    package var highestAck: UInt32
    package var startedAt: Int64
    /// When the acknowledgement last moved.
    package var progressAt: Int64
    /// When the message at ``highestAck`` is resent if nothing moves.
    package var timeoutAt: Int64
    /// The current timeout (60 s doubling to 1 h).
    package var timeoutSeconds: Int64
    /// When the window was last resent on a repeated acknowledgement.
    package var windowResentAt: Int64?

    /// A state of these values.
    package init(transferID: String, deviceID: String, channelID: String, status: TransferStatus = .running, failure: String? = nil,
                 manifest1: [UInt8], manifest2: [UInt8]? = nil, sentUpTo: UInt32 = 0, highestAck: UInt32 = 0, startedAt: Int64,
                 progressAt: Int64, timeoutAt: Int64, timeoutSeconds: Int64, windowResentAt: Int64? = nil) {
        self.transferID = transferID
        self.deviceID = deviceID
        self.channelID = channelID
        self.status = status
        self.failure = failure
        self.manifest1 = manifest1
        self.manifest2 = manifest2
        self.sentUpTo = sentUpTo
        self.highestAck = highestAck
        self.startedAt = startedAt
        self.progressAt = progressAt
        self.timeoutAt = timeoutAt
        self.timeoutSeconds = timeoutSeconds
        self.windowResentAt = windowResentAt
    }
}

/// The new device's stored state of the transfer it receives (docs/spec/protocol.md
/// §11.4–§11.6), store `v23`. Times are microseconds since 1970.
package struct IncomingTransferState: Sendable, Equatable {
    package var transferID: String
    /// The recorded primary, the only sender taken.
    package var primaryDeviceID: String
    package var channelID: String
    /// Our user's key from the grant (own devices' certificates verify under it).
    package var userKey: [UInt8]
    package var status: TransferStatus
    package var failure: String?
    /// Every message below this index is held (committed).
    package var nextIndex: UInt32
    /// Manifest 1 and 2 as their link plaintexts' bytes, once taken.
    package var manifest1: [UInt8]?
    package var manifest2: [UInt8]?
    /// Whether each phase's trust part is imported.
    package var imported1: Bool
    package var imported2: Bool
    /// Records held so far (both phases).
    package var recordsDone: Int
    /// The import's figures (both phases).
    package var applied: Int
    package var conflicts: Int
    package var skipped: Int
    package var startedAt: Int64
    /// When ``nextIndex`` last moved.
    package var progressAt: Int64
    /// When an acknowledgement is sent if nothing moves.
    package var ackAt: Int64
    /// The current wait before such an acknowledgement (60 s doubling to 1 h).
    package var ackSeconds: Int64
    /// Acknowledgements sent without progress (at most 10).
    package var idleAcks: Int
    /// When a duplicate was last acknowledged (at most once a minute).
    package var duplicateAckAt: Int64?

    /// A state of these values.
    package init(transferID: String, primaryDeviceID: String, channelID: String, userKey: [UInt8], status: TransferStatus = .running,
                 failure: String? = nil, nextIndex: UInt32 = 0, manifest1: [UInt8]? = nil, manifest2: [UInt8]? = nil, imported1: Bool = false,
                 imported2: Bool = false, recordsDone: Int = 0, applied: Int = 0, conflicts: Int = 0, skipped: Int = 0, startedAt: Int64,
                 progressAt: Int64, ackAt: Int64, ackSeconds: Int64, idleAcks: Int = 0, duplicateAckAt: Int64? = nil) {
        self.transferID = transferID
        self.primaryDeviceID = primaryDeviceID
        self.channelID = channelID
        self.userKey = userKey
        self.status = status
        self.failure = failure
        self.nextIndex = nextIndex
        self.manifest1 = manifest1
        self.manifest2 = manifest2
        self.imported1 = imported1
        self.imported2 = imported2
        self.recordsDone = recordsDone
        self.applied = applied
        self.conflicts = conflicts
        self.skipped = skipped
        self.startedAt = startedAt
        self.progressAt = progressAt
        self.ackAt = ackAt
        self.ackSeconds = ackSeconds
        self.idleAcks = idleAcks
        self.duplicateAckAt = duplicateAckAt
    }
}
