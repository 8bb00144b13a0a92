import E2EECrypto

/// The primary's grants and their fate (docs/spec/protocol.md §10.11 steps 5–6), as a pure
/// ledger: the driver records each grant it logged and sent, and feeds acks, listings,
/// removals, cancels and the time; the ledger says when to resend, when a device becomes kept
/// and when a grant failed.
///
/// A grant is *open* from its issue until it is confirmed or void. It is confirmed — the device
/// joins the kept set — only by an `ack` of its transfer from the granted device, or by that
/// device's listed record carrying exactly the granted certificate, while it is open. It is void
/// for good once the device is removed, once the device cancels it, and, unconfirmed, once the
/// time passes its issue time + 15 minutes (failed, surfaced) or its certificate's `not_after`.
/// A confirmation that arrives for a void grant is surfaced once (`lateConfirmation`) and keeps
/// nothing: the user links the device again.
///
/// `now` is the later of this device's clock and its mark (§10.19), in unix seconds.
struct GrantLedger: Sendable {
    /// How long an unconfirmed grant stays open.
    static let confirmationWindow: Int64 = 15 * 60
    /// How often an open grant's stored envelope is posted again.
    static let resendInterval: Int64 = 60

    /// One grant as the ledger tracks it.
    struct Grant: Sendable, Equatable {
        /// The granted device.
        let device: WireUUID
        /// The request it answered.
        let requestID: WireUUID
        /// The transfer it named.
        let transferID: WireUUID
        /// The certificate it carried.
        let certificate: DeviceCertificate
        /// When it was issued.
        let issuedAt: Int64
        /// When its stored envelope was last posted.
        var lastSentAt: Int64
        /// Where it stands.
        var state: State
    }

    /// Where a grant stands.
    enum State: Sendable, Equatable {
        /// Logged and sent, neither confirmed nor void.
        case open
        /// Confirmed: the device is kept.
        case confirmed
        /// Void for good, for this reason.
        case void(VoidReason)
    }

    /// Why a grant is void.
    enum VoidReason: Sendable, Equatable {
        /// Unconfirmed 15 minutes after its issue.
        case unconfirmed
        /// Its certificate's `not_after` passed unconfirmed.
        case expired
        /// The device was removed.
        case removed
        /// The device cancelled the link.
        case cancelled
    }

    /// What the driver must do.
    enum Action: Sendable, Equatable {
        /// Post the grant's stored envelope again.
        case resend(transferID: WireUUID)
        /// Add the device to the kept set (it becomes a linked device, renewed from now on).
        case keep(WireUUID)
        /// The grant failed unconfirmed: surface it (the user may remove the device).
        case failed(WireUUID)
        /// A confirmation arrived for a void grant: surface it once; nothing is kept.
        case lateConfirmation(WireUUID)
    }

    /// Every grant recorded, in issue order.
    private(set) var grants: [Grant] = []
    /// Devices removed here: never kept again.
    private var removed: Set<WireUUID> = []
    /// Late confirmations already surfaced.
    private var surfacedLate: Set<WireUUID> = []

    /// A ledger over grants the driver stored (after a restart).
    init(grants: [Grant] = [], removed: Set<WireUUID> = []) {
        self.grants = grants
        self.removed = removed
    }

    /// Records a grant logged and sent at `now`.
    mutating func issued(to device: WireUUID, requestID: WireUUID, transferID: WireUUID, certificate: DeviceCertificate, now: Int64) {
        let state: State = removed.contains(device) ? .void(.removed) : .open
        grants.append(Grant(device: device, requestID: requestID, transferID: transferID, certificate: certificate, issuedAt: now,
                            lastSentAt: now, state: state))
    }

    /// An `ack` of `transferID` from `device` opened for the first time.
    mutating func acknowledged(transferID: WireUUID, from device: WireUUID, now: Int64) -> [Action] {
        confirm(at: grants.firstIndex { $0.transferID == transferID && $0.device == device }, now: now)
    }

    /// `device`'s listed record carries `certificate`.
    mutating func listed(_ certificate: DeviceCertificate, of device: WireUUID, now: Int64) -> [Action] {
        confirm(at: grants.lastIndex { $0.device == device && $0.certificate == certificate }, now: now)
    }

    /// `device` sent a `cancel` of the request `requestID`.
    mutating func cancelled(requestID: WireUUID, by device: WireUUID) {
        for index in grants.indices where grants[index].device == device && grants[index].requestID == requestID && grants[index].state == .open {
            grants[index].state = .void(.cancelled)
        }
    }

    /// `device` was removed: its grants are void and it is never kept again.
    mutating func removed(_ device: WireUUID) {
        removed.insert(device)
        for index in grants.indices where grants[index].device == device && grants[index].state != .void(.removed) {
            grants[index].state = .void(.removed)
        }
    }

    /// Time passed: fails what waited too long, resends what is due.
    mutating func tick(now: Int64) -> [Action] {
        var actions = expire(now: now)
        for index in grants.indices where grants[index].state == .open && now - grants[index].lastSentAt >= Self.resendInterval {
            grants[index].lastSentAt = now
            actions.append(.resend(transferID: grants[index].transferID))
        }
        return actions
    }

    /// Voids the open grants whose window or certificate ended by `now`.
    private mutating func expire(now: Int64) -> [Action] {
        var actions: [Action] = []
        for index in grants.indices where grants[index].state == .open {
            let grant = grants[index]
            if now > Int64(grant.certificate.notAfter) {
                grants[index].state = .void(.expired)
            } else if now >= grant.issuedAt + Self.confirmationWindow {
                grants[index].state = .void(.unconfirmed)
            } else {
                continue
            }
            actions.append(.failed(grant.device))
        }
        return actions
    }

    /// Confirms the grant at `index` if it is still open (first applying the time).
    private mutating func confirm(at index: Int?, now: Int64) -> [Action] {
        guard let index else { return [] }
        var actions = expire(now: now)
        switch grants[index].state {
        case .open:
            grants[index].state = .confirmed
            actions.append(.keep(grants[index].device))
        case .confirmed:
            break
        case .void:
            let device = grants[index].device
            if surfacedLate.insert(device).inserted { actions.append(.lateConfirmation(device)) }
        }
        return actions
    }
}
