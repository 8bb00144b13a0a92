import E2EEKeyStore
import E2EEMessaging
import Foundation
import Synchronization

/// The demo's linking (docs/spec/protocol.md §10.11): a phone, the primary of its user's key,
/// links the user's laptop with the two codes — the demo types each device's code into the
/// other, as a user would — and sends it its trust decisions; every step is carried over the
/// server by syncing the two devices in turn.
enum DemoLinking {
    /// A keychain for the demo's primary files: a random key per item, kept in memory for the run.
    final class Keychain: PrimaryFileKeychain {
        private let items = Mutex<[String: SecretBytes]>([:])

        func key(item: String, create: Bool) throws -> SecretBytes? {
            items.withLock { items in
                if let key = items[item] { return key }
                guard create else { return nil }
                let key = SecretBytes.random(count: 32)
                items[item] = key
                return key
            }
        }
    }

    /// What a demo link failed on.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Links `laptop` to `phone`; returns the two codes the demo typed.
    static func link(_ laptop: Account, to phone: Account, console: Console, label: String) async throws -> (laptopCode: String, phoneCode: String) {
        let primary = Steps(try await phone.openLinkStep())
        let newDevice = Steps(try await laptop.startLinking())
        await laptop.waitForOutbox()
        try await phone.sync()
        _ = try await primary.next(until: { $0 == .requestReceived(laptop.deviceID) })
        await phone.waitForOutbox()
        try await laptop.sync()
        guard case .showCode(let laptopCode) = try await newDevice.next(until: { if case .showCode = $0 { true } else { false } }) else {
            throw Failure(description: "\(label): no code")
        }
        await laptop.waitForOutbox()
        try await phone.sync()
        _ = try await primary.next(until: { $0 == .enterCode })
        console.progress("\(label): the laptop shows \(laptopCode); typed into the phone…")
        await primary.attempt.enter(code: laptopCode)
        guard case .showCode(let phoneCode) = try await primary.next(until: { if case .showCode = $0 { true } else { false } }) else {
            throw Failure(description: "\(label): no code on the phone")
        }
        _ = try await primary.next(until: { if case .granted = $0 { true } else { false } })
        await phone.waitForOutbox()
        console.progress("\(label): the phone shows \(phoneCode); typed into the laptop…")
        await newDevice.attempt.enter(code: phoneCode)
        try await laptop.sync()
        _ = try await newDevice.next(until: { $0 == .linked })
        // The grant's acknowledgement, then the trust part, back and forth until both ends are done.
        let transferred = Flag()
        let events = laptop.events()
        let watcher = Task {
            for await event in events {
                if case .linking(.trustTransferred) = event { return transferred.set() }
            }
        }
        defer { watcher.cancel() }
        await laptop.waitForOutbox()
        try await phone.sync()
        _ = try await primary.next(until: { $0 == .linked })
        for _ in 0..<20 {
            await phone.waitForOutbox()
            try await laptop.sync()
            await laptop.waitForOutbox()
            try await phone.sync()
            try await Task.sleep(for: .milliseconds(50))
            if transferred.isSet { return (laptopCode, phoneCode) }
        }
        throw Failure(description: "\(label): the trust part did not arrive")
    }

    /// Set once, read from anywhere.
    final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    /// One end's steps, read in order with a time limit.
    final class Steps: @unchecked Sendable {
        let attempt: LinkAttempt
        private var iterator: AsyncStream<LinkStep>.AsyncIterator

        init(_ attempt: LinkAttempt) {
            self.attempt = attempt
            iterator = attempt.steps.makeAsyncIterator()
        }

        /// The first step `matches` accepts, skipping the others (30 s at most).
        func next(until matches: (LinkStep) -> Bool) async throws -> LinkStep {
            while true {
                let box = self
                let step = await withTaskGroup(of: LinkStep?.self) { group in
                    group.addTask { await box.iterator.next() }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(30))
                        return nil
                    }
                    let first = await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
                guard let step else { throw Failure(description: "a link step did not come") }
                if case .cancelled(let reason) = step { throw Failure(description: "the link was cancelled (\(reason))") }
                if matches(step) { return step }
            }
        }
    }
}
