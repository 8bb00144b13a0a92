import E2EEKeyStore

/// The clock of text 1.3 as the rules read it (docs/spec/protocol.md §10.19): the system clock,
/// never a server's time, with this device's stored readings. Seconds since the epoch.
struct UserKeyClock: Sendable, Equatable {
    /// Seconds in a day.
    static let day: Int64 = 86_400
    /// The grace after `not_after` during which a certificate is still current.
    static let expiryGrace: Int64 = 600
    /// How far ahead a `not_after` may lie and still be current.
    static let maximumLifetime: Int64 = 45 * day
    /// How long after a rollback of this store no key change is offered.
    static let rollbackQuiet: Int64 = 30 * day

    /// The system clock's reading now.
    var now: Int64
    /// The stored readings (mark, agreed reading, flags).
    var readings: ClockReadings
    /// When this store was last rolled back (a restore or §3.14), if ever.
    var rolledBackAt: Int64?

    /// Whether a certificate with `notAfter` is current by this clock: not past its grace by
    /// the reading or the mark, and not dated beyond the longest lifetime.
    func isCurrent(notAfter: UInt32) -> Bool {
        let end = Int64(notAfter)
        return max(now, readings.mark) <= end + Self.expiryGrace && end <= now + Self.maximumLifetime
    }

    /// Whether §10.17's gate past `seenUntil` is open: the agreed reading beyond it, the clock
    /// neither suspect nor gone back, and no rollback within the last 30 days.
    func keyChangeGateOpen(seenUntil: UInt32) -> Bool {
        guard let agreed = readings.agreedReading, !readings.suspect, !readings.wentBack else { return false }
        if let rolledBackAt, agreed < rolledBackAt + Self.rollbackQuiet { return false }
        return agreed > Int64(seenUntil) + Self.expiryGrace
    }

    /// Whether the gate would be open by the reading now though it is not by the agreed reading
    /// (§10.19: surfaced as `clockSuspect`).
    func keyChangeGateOpenOnlyByReading(seenUntil: UInt32) -> Bool {
        now > Int64(seenUntil) + Self.expiryGrace + Self.day && !keyChangeGateOpen(seenUntil: seenUntil)
    }
}
