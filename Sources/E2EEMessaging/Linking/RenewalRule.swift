@_spi(StoreInternals) import E2EEKeyStore

/// The primary's renewal of its own certificate (docs/spec/protocol.md §10.12–§10.13), as a pure
/// function of what it knows: its newest logged certificate, the file's epoch, what our own
/// listing shows for it, and the clock. The kept set is this device alone until linking lands.
enum RenewalRule {
    /// A certificate listed with less than this left is renewed (23 days).
    static let renewBelow: Int64 = 23 * UserKeyClock.day
    /// A certificate's lifetime (30 days).
    static let lifetime: Int64 = 30 * UserKeyClock.day
    /// Below this much left, the device warns (7 days).
    static let warnBelow: Int64 = 7 * UserKeyClock.day

    /// What one device's newest logged certificate says.
    struct Logged: Sendable, Equatable {
        var epoch: UInt32
        var notAfter: UInt32
    }

    /// What the rule reads.
    struct Input: Sendable, Equatable {
        /// The clock (system reading and stored readings, mark already raised to it).
        var clock: UserKeyClock
        /// The file's issuing epoch.
        var fileEpoch: UInt32
        /// The newest certificate the log holds for this device (nil: none).
        var newest: Logged?
        /// Whether our own listing shows that newest certificate on this device's record (nil:
        /// the listing could not be read).
        var listed: Bool?
        /// Why issuing stopped, if it did.
        var stopped: OwnUserKeyRecord.IssuingStop?
    }

    /// What to do.
    enum Decision: Sendable, Equatable {
        /// Nothing: the certificate is current, at the file's epoch, listed, with 23 days or more left.
        case upToDate
        /// Issue a new certificate (logged before it is published) and republish the record.
        case issue
        /// The newest certificate is current but not listed: republish the record carrying it
        /// (not issuing: allowed whatever the clock, and after issuing stopped).
        case republish
        /// A certificate is due but none may be issued.
        case held(Hold)
    }

    /// Why a due certificate is not issued.
    enum Hold: Sendable, Equatable {
        /// Issuing stopped for good.
        case stopped(OwnUserKeyRecord.IssuingStop)
        /// The clock went back over a day and the user has not confirmed it.
        case clockWentBack
        /// The clock and the server's disagreed by over a day at the latest post.
        case clockSuspect
    }

    /// The decision for `input`.
    static func decide(_ input: Input) -> Decision {
        let due: Bool
        if let newest = input.newest {
            let current = input.clock.isCurrent(notAfter: newest.notAfter) && newest.epoch >= input.fileEpoch
            let shortLived = Int64(newest.notAfter) - input.clock.now < renewBelow
            if current && input.listed == false { return .republish }
            due = !current || (shortLived && input.listed != false)
        } else {
            due = true
        }
        guard due else { return .upToDate }
        return hold(input) ?? .issue
    }

    /// Whether the device should warn: its certificate ends within 7 days by the later of clock and mark.
    static func shouldWarn(notAfter: UInt32, clock: UserKeyClock) -> Bool {
        Int64(notAfter) - max(clock.now, clock.readings.mark) < warnBelow
    }

    private static func hold(_ input: Input) -> Decision? {
        if let stopped = input.stopped { return .held(.stopped(stopped)) }
        if input.clock.readings.wentBack { return .held(.clockWentBack) }
        if input.clock.readings.suspect { return .held(.clockSuspect) }
        return nil
    }
}
