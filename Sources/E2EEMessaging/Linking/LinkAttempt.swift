/// One end of a device link as the app holds it (docs/spec/protocol.md §10.11): what to show,
/// in order, and the two things the user does — type the other device's code, or give up.
/// Made by ``Account/openLinkStep(history:)`` on the primary and ``Account/startLinking()`` on the
/// new device.
public final class LinkAttempt: Sendable {
    /// What to show, in order; it finishes after ``LinkStep/linked`` or ``LinkStep/cancelled(_:)``.
    public let steps: AsyncStream<LinkStep>
    private let driver: LinkDriver

    init(steps: AsyncStream<LinkStep>, driver: LinkDriver) {
        self.steps = steps
        self.driver = driver
    }

    /// The code the other device shows, typed by the user (six digits). A wrong code ends the
    /// attempt on both devices (`LinkCancelReason.codeMismatch`).
    public func enter(code: String) async {
        await driver.userEntered(code: code)
    }

    /// Ends the attempt on both devices (`LinkCancelReason.refusedByUser`).
    public func cancel() async {
        await driver.userCancelled()
    }
}
