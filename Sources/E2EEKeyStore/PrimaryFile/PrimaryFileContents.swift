import E2EECrypto

/// What the primary file holds (docs/spec/protocol.md §3 "State", §10.12): everything a primary
/// device needs to issue certificates, and nothing the store could stand in for. The user key's
/// private half lives only here (as its 32-byte seed, wiped when released).
package struct PrimaryFileContents: Sendable, Equatable {
    /// A random id of this file, mirrored in the store: a store and a file that never belonged
    /// together are told apart.
    public var fileID: [UInt8]
    /// The seed of `UMK`, the user key.
    public var userKeySeed: SecretBytes
    /// The issuing epoch: every certificate is issued at it.
    public var epoch: UInt32
    /// Certificate log entries ever written (pruning does not lower it).
    public var logCount: UInt64
    /// The trust counter (§11.3).
    public var trustCounter: UInt64
    /// The highest clock reading this file has seen (unix seconds).
    public var mark: Int64
    /// The devices the file certifies (device ids, lower-case text), this device included.
    public var kept: [String]
    /// Devices removed for good: never kept again.
    public var removed: [String]
    /// Every certificate issued and not yet pruned, oldest first, and the pruned ones' digests.
    public var log: [CertificateLogEntry]
    /// A removal saved and not yet carried out to the end (§10.14), resumed at start-up.
    public var removal: PendingRemoval?

    /// Creates the value.
    public init(fileID: [UInt8], userKeySeed: SecretBytes, epoch: UInt32, logCount: UInt64, trustCounter: UInt64, mark: Int64,
                kept: [String], removed: [String], log: [CertificateLogEntry], removal: PendingRemoval? = nil) {
        self.fileID = fileID
        self.userKeySeed = userKeySeed
        self.epoch = epoch
        self.logCount = logCount
        self.trustCounter = trustCounter
        self.mark = mark
        self.kept = kept
        self.removed = removed
        self.log = log
        self.removal = removal
    }

    /// The user key.
    /// - Throws: `CryptoError` when the seed is not 32 bytes (the parser never lets one through).
    public func userKey() throws -> Ed25519.PrivateKey { try Ed25519.PrivateKey(seed: userKeySeed) }

    /// The newest logged entry for `deviceID`, if any.
    public func newestEntry(for deviceID: String) -> CertificateLogEntry? {
        log.last { $0.deviceID == deviceID }
    }

    /// Whether the log holds (or held, before pruning) exactly this certificate.
    public func logs(certificate: [UInt8]) -> Bool {
        let digest = SHA256.hash(certificate)
        return log.contains { ConstantTime.equals($0.digest, digest) }
    }

    /// Adds `entry` to the log, counting it.
    public mutating func append(_ entry: CertificateLogEntry) {
        log.append(entry)
        logCount += 1
    }

    /// Prunes every entry whose `not_after` + 1 day has passed by `reading` (the later of the
    /// clock and the mark): its blob and certificate go, its digest stays, so no clock makes a
    /// certificate this file issued look foreign. The newest entry of each kept device stays
    /// whole, however old: its blob is what the renewal of a device whose certificate ran out
    /// while the primary was away certifies again (§10.13).
    public mutating func prune(at reading: Int64) {
        var newestKept: Set<Int> = []
        for device in kept {
            if let index = log.lastIndex(where: { $0.deviceID == device }) { newestKept.insert(index) }
        }
        for index in log.indices where log[index].body != nil && Int64(log[index].notAfter) + 86_400 < reading && !newestKept.contains(index) {
            log[index].body = nil
        }
    }
}

/// A removal of one device the file saved (docs/spec/protocol.md §10.14): its new epoch and
/// certificates are logged; what is left to do outside the file is its `stage`.
package struct PendingRemoval: Sendable, Equatable {
    /// The steps after the save, in order.
    public enum Stage: UInt8, Sendable, Equatable {
        /// The primary's own record, carrying the new epoch, is not published yet.
        case republish = 1
        /// `DELETE /devices/{id}` has not succeeded yet.
        case deleteDevice = 2
        /// The recerts to the kept devices are not queued yet.
        case recerts = 3
    }

    /// The removed device (lower-case text).
    public var deviceID: String
    /// The next step.
    public var stage: Stage

    /// Creates the value.
    public init(deviceID: String, stage: Stage) {
        self.deviceID = deviceID
        self.stage = stage
    }
}

/// One certificate the primary issued (docs/spec/protocol.md §10.12): logged before it leaves.
package struct CertificateLogEntry: Sendable, Equatable {
    /// What a full entry keeps besides the digest.
    public struct Body: Sendable, Equatable {
        /// The device's identity blob (65 bytes) the certificate binds.
        public var identityBlob: [UInt8]
        /// The 104-byte certificate.
        public var certificate: [UInt8]

        /// Creates the value.
        public init(identityBlob: [UInt8], certificate: [UInt8]) {
            self.identityBlob = identityBlob
            self.certificate = certificate
        }
    }

    /// The certified device.
    public var deviceID: String
    /// The certificate's epoch.
    public var epoch: UInt32
    /// The certificate's `not_after`.
    public var notAfter: UInt32
    /// SHA-256 of the certificate's 104 bytes (kept after pruning).
    public var digest: [UInt8]
    /// The blob and the certificate, `nil` once pruned.
    public var body: Body?

    /// A full entry for `certificate` (104 bytes) given to `deviceID` with `identityBlob`.
    public init(deviceID: String, identityBlob: [UInt8], certificate: DeviceCertificate) {
        self.deviceID = deviceID
        self.epoch = certificate.epoch
        self.notAfter = certificate.notAfter
        self.digest = SHA256.hash(certificate.bytes)
        self.body = Body(identityBlob: identityBlob, certificate: certificate.bytes)
    }

    /// An entry as read back.
    init(deviceID: String, epoch: UInt32, notAfter: UInt32, digest: [UInt8], body: Body?) {
        self.deviceID = deviceID
        self.epoch = epoch
        self.notAfter = notAfter
        self.digest = digest
        self.body = body
    }
}
