import E2EEMessaging

/// A warning about this device's clock (docs/spec/protocol.md §10.19), as `listen` prints it:
/// a line, or with `--json` one object (`{"event":"clock_went_back"}`).
struct ClockNotice: Encodable, Equatable {
    /// `clock_went_back` or `clock_suspect`.
    let event: String

    /// The notice of `event`; nil for every other event.
    init?(_ event: AccountEvent) {
        switch event {
        case .clockWentBack: self.event = "clock_went_back"
        case .clockSuspect: self.event = "clock_suspect"
        default: return nil
        }
    }

    /// The text line.
    func line() -> String {
        let what = event == "clock_went_back"
            ? "this device's clock went back over a day: certificates stay judged by the highest reading until it is confirmed"
            : "this device's clock disagrees with the server's by over a day: no user-key change is offered until it is confirmed"
        return "* WARNING: \(what) (check it, then clock confirm)"
    }
}
