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
    /// On the primary: our own listing shows on `deviceID` a current certificate under our key
    /// that this primary's file never logged. Either another holder of the key certified it,
    /// or this primary's file and store were restored from an older copy and the certificate
    /// is one this primary issued afterwards (to a device it kept, docs/spec/protocol.md §10.12,
    /// K30). Issuing stops (``IssuingStopReason/anotherHolder``), reported right after.
    case certificateNotLogged(DeviceID)
    /// On the primary: our own listing shows a device this primary keeps carrying a
    /// certificate under another user key (a stolen device certified by its thief, or a reset
    /// made elsewhere). Issuing goes on; remove the device (``Account/removeDevice(_:)``) unless
    /// the user reset the key elsewhere. Reported at each renewal while it lasts.
    case keptDeviceUnderAnotherKey(DeviceID)
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
    /// This device has no key of its own and our own listing shows a current certificate of our
    /// user on an own device it trusts: the account has a key now, and this device is unlinked
    /// until it is linked to the primary (``Account/startLinking()``); every send but a link
    /// message fails with ``MessagingError/linkingRequired`` (docs/spec/protocol.md §10.25).
    case linkingRequired
    /// This device has no key of its own and our own listing shows a current certificate of our
    /// user only on devices it does not trust: told once, nothing more — the user may link this
    /// device (``Account/startLinking()``) if the key is theirs (docs/spec/protocol.md §10.25).
    case linkSuggested
    /// On the primary: `deviceID` confirmed a grant after it had failed (unconfirmed for 15
    /// minutes) or been cancelled — nothing is kept; if the device is the user's, link it again
    /// (docs/spec/protocol.md §10.11 step 6).
    case lateConfirmation(DeviceID)
    /// The primary sent the trust part of a transfer to `deviceID`, which acknowledged all of
    /// it; the transfer channel is deleted.
    case trustSent(to: DeviceID)
    /// On the primary: the transfer to `deviceID` is held before its first manifest because
    /// this store is behind the primary file's trust counter (restored from an older copy, the
    /// file intact): decisions made since may be missing here. Show the trust state, then
    /// ``Account/confirmTrustState()`` starts the transfer (docs/spec/protocol.md §11.3).
    case trustStateUnconfirmed(DeviceID)
    /// Where a link transfer stands (docs/spec/protocol.md §11.6), on either end: after each
    /// commit on the new device, as the primary's window moves, and when it ends.
    case transfer(TransferProgress)
}
