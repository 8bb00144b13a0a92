@testable import E2EEMessaging
import Testing

/// Links a new login to the primary with the two codes, as ``IntegrationTests/LinkCeremonyIntegrationTests``
/// does, with a hook run after the new device posted its `ack(0)` and before the primary reads
/// it (where a test mounts a fault on the transfer's first messages).
enum TransferLink {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func link(_ laptop: Account, to primary: Account, beforeTransfer: () async throws -> Void) async throws {
        let primarySteps = StepReader(try await primary.openLinkStep())
        let newSteps = StepReader(try await laptop.startLinking())
        await laptop.waitForOutbox()
        try await primary.sync()
        _ = try await primarySteps.next(until: .requestReceived(laptop.deviceID))
        await primary.waitForOutbox()
        try await laptop.sync()
        guard case .showCode(let codeN) = try await newSteps.next(until: nil) else { throw Failure("no code on the new device") }
        await laptop.waitForOutbox()
        try await primary.sync()
        _ = try await primarySteps.next(until: .enterCode)
        await primarySteps.attempt.enter(code: codeN)
        guard case .showCode(let codeP) = try await primarySteps.next(until: nil) else { throw Failure("no code on the primary") }
        _ = try await primarySteps.next(until: .granted(laptop.deviceID))
        await primary.waitForOutbox()
        await newSteps.attempt.enter(code: codeP)
        try await laptop.sync()
        _ = try await newSteps.next(until: .linked)
        await laptop.waitForOutbox()
        try await beforeTransfer()
        try await primary.sync()
        _ = try await primarySteps.next(until: .linked)
    }
}

/// Reads a link attempt's steps with a time limit.
final class StepReader: @unchecked Sendable {
    let attempt: LinkAttempt
    private var iterator: AsyncStream<LinkStep>.AsyncIterator

    init(_ attempt: LinkAttempt) {
        self.attempt = attempt
        iterator = attempt.steps.makeAsyncIterator()
    }

    func next(within limit: Duration = .seconds(10)) async throws -> LinkStep {
        let box = self
        let step = await withTaskGroup(of: LinkStep?.self) { group in
            group.addTask { await box.iterator.next() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let step else { throw TransferLink.Failure("no step within \(limit)") }
        return step
    }

    /// The next step that is `wanted`, or with `nil` the next that is neither waiting nor a request.
    func next(until wanted: LinkStep?) async throws -> LinkStep {
        while true {
            let step = try await next()
            if let wanted { if step == wanted { return step } else { continue } }
            if case .requestReceived = step { continue }
            if step != .waiting { return step }
        }
    }
}
