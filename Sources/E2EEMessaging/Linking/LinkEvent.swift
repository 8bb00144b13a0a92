import Foundation

/// What the own side of text 1.3 reports (docs/spec/protocol.md §10.12–§10.13), on
/// ``AccountEvent/linking(_:)``.
public enum LinkEvent: Sendable, Equatable {
    /// This primary issued itself a new certificate and republished its record.
    case certificateRenewed(notAfter: Date)
    /// This device's own certificate has under 7 days left and was not renewed (the clock is
    /// suspect or went back, or issuing stopped): contacts will stop sending to it at
    /// `notAfter`.
    case certificateExpiring(notAfter: Date)
    /// Issuing stopped for good on this primary (reported once, when it stops; ``Account/ownUserKey()``
    /// keeps saying it).
    case issuingStopped(IssuingStopReason)
    /// A renewal was due but the clock is suspect or went back (§10.19): nothing was issued.
    /// Check the clock, then ``Account/confirmClock()``.
    case renewalHeldByClock
    /// The trust part of a transfer from our primary was imported on this new device
    /// (docs/spec/protocol.md §11.5): `applied` records took effect; `conflicts` met a decision
    /// this device had made itself, which stands; `skipped` did not verify.
    case trustTransferred(applied: Int, conflicts: Int, skipped: Int)
    /// A transfer failed on this device (counts, digest or order did not hold): nothing of its
    /// phase was imported; the user asks the primary again.
    case transferFailed(reason: String)
    /// The primary sent the trust part of a transfer to `deviceID`, which acknowledged all of
    /// it; the transfer channel is deleted.
    case trustSent(to: DeviceID)
    /// Where a link transfer stands (docs/spec/protocol.md §11.6), on either end: after each
    /// commit on the new device, as the primary's window moves, and when it ends.
    case transfer(TransferProgress)
}
