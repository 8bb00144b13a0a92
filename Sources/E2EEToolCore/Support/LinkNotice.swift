import E2EEMessaging
import Foundation

/// What the own side of text 1.3 reports (docs/spec/protocol.md §10.12–§10.13), as `listen`
/// prints it: a line, or with `--json` one object (`{"event":"issuing_stopped","reason":"restoredFile"}`).
struct LinkNotice: Encodable, Equatable {
    /// `certificate_renewed`, `certificate_expiring`, `issuing_stopped`, `renewal_held_by_clock`,
    /// `trust_transferred`, `transfer_failed`, `trust_sent`, `transfer`, `linking_required`, `link_suggested`, `late_confirmation`,
    /// `kept_device_under_another_key`, `certificate_not_logged` or `trust_state_unconfirmed`.
    let event: String
    /// ISO 8601, for the certificate events.
    let notAfter: String?
    /// Why issuing stopped, what a transfer imported, or why it failed.
    let reason: String?

    enum CodingKeys: String, CodingKey { case event, notAfter = "not_after", reason }

    /// The notice of `event`; nil for every other event.
    init?(_ event: AccountEvent) {
        guard case .linking(let link) = event else { return nil }
        switch link {
        case .certificateRenewed(let end): (self.event, notAfter, reason) = ("certificate_renewed", end.formatted(.iso8601), nil)
        case .certificateExpiring(let end): (self.event, notAfter, reason) = ("certificate_expiring", end.formatted(.iso8601), nil)
        case .issuingStopped(let why): (self.event, notAfter, reason) = ("issuing_stopped", nil, why.rawValue)
        case .renewalHeldByClock: (self.event, notAfter, reason) = ("renewal_held_by_clock", nil, nil)
        case .trustTransferred(let applied, let conflicts, let skipped):
            (self.event, notAfter, reason) = ("trust_transferred", nil, "\(applied) applied, \(conflicts) conflicts, \(skipped) skipped")
        case .transferFailed(let why): (self.event, notAfter, reason) = ("transfer_failed", nil, why)
        case .trustSent(let device): (self.event, notAfter, reason) = ("trust_sent", nil, device.rawValue)
        case .linkingRequired: (self.event, notAfter, reason) = ("linking_required", nil, nil)
        case .linkSuggested: (self.event, notAfter, reason) = ("link_suggested", nil, nil)
        case .lateConfirmation(let device): (self.event, notAfter, reason) = ("late_confirmation", nil, device.rawValue)
        case .keptDeviceUnderAnotherKey(let device): (self.event, notAfter, reason) = ("kept_device_under_another_key", nil, device.rawValue)
        case .certificateNotLogged(let device): (self.event, notAfter, reason) = ("certificate_not_logged", nil, device.rawValue)
        case .trustStateUnconfirmed(let device): (self.event, notAfter, reason) = ("trust_state_unconfirmed", nil, device.rawValue)
        case .transfer(let progress):
            (self.event, notAfter, reason) = ("transfer", nil, TransferLine(progress).text)
        }
    }

    /// The text line.
    func line() -> String {
        switch event {
        case "certificate_renewed": "* this device renewed its certificate (valid until \(notAfter ?? "?"))"
        case "certificate_expiring": "* WARNING: this device's certificate ends \(notAfter ?? "?") and was not renewed"
        case "issuing_stopped": "* WARNING: this primary stopped issuing certificates (\(reason ?? "?")): reset the user key"
        case "trust_transferred": "* this device took its primary's trust decisions (\(reason ?? "?"))"
        case "trust_sent": "* this primary sent its trust decisions to \(reason ?? "?")"
        case "late_confirmation": "* \(reason ?? "?") confirmed a link that had already failed: nothing was kept; link it again if it is yours"
        case "linking_required": "* this account has a user key now: link this device to the primary (link start) before it sends"
        case "link_suggested": "* another device of this account carries a user key: if it is yours, link this device to it (link start)"
        case "transfer": "* transfer \(reason ?? "?")"
        case "transfer_failed": "* WARNING: the transfer from the primary failed (\(reason ?? "?")): link again from the primary"
        case "certificate_not_logged":
            "* WARNING: our device \(reason ?? "?") lists a certificate under our key that this primary never logged (its file restored, or another holder)"
        case "trust_state_unconfirmed":
            "* the transfer to \(reason ?? "?") waits: this store is older than the primary file; check the trust state shown, then confirm it"
        case "kept_device_under_another_key":
            "* WARNING: our device \(reason ?? "?") carries a certificate under another user key: remove it (devices remove) unless you reset the key elsewhere"
        default: "* WARNING: a certificate renewal is due but the clock went back or is suspect (check it, then clock confirm)"
        }
    }
}
