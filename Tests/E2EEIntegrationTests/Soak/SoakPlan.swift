import E2EEDevServer
import Foundation

/// What the soak does, drawn from one seed: which device sends what to which channel, in three
/// phases (sockets with faults, polling, sockets with faults again). Texts are unique, so
/// "each text once" is checkable.
struct SoakPlan: Sendable {
    /// Where a message goes.
    enum Target: String, Sendable, Hashable, CaseIterable {
        /// The DM between alice and bob.
        case dm
        /// The group of alice, bob and carol.
        case group
    }

    /// One message to send.
    struct Message: Sendable, Hashable {
        let target: Target
        let text: String
    }

    /// The devices, in the order of ``messages``: alice and bob with two each, carol with one.
    static let devices = ["alice-1", "alice-2", "bob-1", "bob-2", "carol-1"]
    /// Carol is not in the DM.
    static let groupOnlyDevice = 4
    /// Phases: 0 and 2 over sockets with faults, 1 while every device is polling.
    static let phaseCount = 3

    let seed: UInt64
    /// Per device, in sending order.
    let messages: [[Message]]

    /// The plan for `seed` with `perDevice` messages from every device.
    init(seed: UInt64, perDevice: Int) {
        self.seed = seed
        var random = SeededRandom(seed: seed)
        messages = Self.devices.indices.map { device in
            (0..<perDevice).map { index in
                let target: Target = device == Self.groupOnlyDevice || Bool.random(using: &random) ? .group : .dm
                return Message(target: target, text: "\(Self.devices[device]) #\(index) (\(target.rawValue))")
            }
        }
    }

    /// The texts sent to `target`, in no particular order.
    func texts(to target: Target) -> [String] {
        messages.flatMap { $0 }.filter { $0.target == target }.map(\.text)
    }

    /// What `device` sends in `phase`.
    func messages(of device: Int, inPhase phase: Int) -> ArraySlice<Message> {
        let all = messages[device]
        let start = all.count * phase / Self.phaseCount
        let end = all.count * (phase + 1) / Self.phaseCount
        return all[start..<end]
    }

    /// How many messages all devices send in phases before `phase`, and in it.
    func progressRange(ofPhase phase: Int) -> Range<Int> {
        let before = (0..<phase).reduce(0) { sum, earlier in sum + messages.indices.reduce(0) { $0 + messages(of: $1, inPhase: earlier).count } }
        let within = messages.indices.reduce(0) { $0 + messages(of: $1, inPhase: phase).count }
        return before..<(before + within)
    }
}

/// The soak's knobs: the seed and the size. CI runs the defaults; `E2EE_SOAK_SEED` repeats a
/// run (or tries another) and `E2EE_SOAK_MESSAGES` makes a longer one (messages per device).
struct SoakSettings: Sendable {
    /// The seed CI runs.
    static let defaultSeed: UInt64 = 0x5EED_0007
    /// Messages per device in CI.
    static let defaultMessagesPerDevice = 40

    var seed: UInt64
    var messagesPerDevice: Int

    /// The defaults, overridden by the environment.
    static func fromEnvironment() -> SoakSettings {
        let environment = ProcessInfo.processInfo.environment
        return SoakSettings(
            seed: environment["E2EE_SOAK_SEED"].flatMap { UInt64($0) } ?? defaultSeed,
            messagesPerDevice: environment["E2EE_SOAK_MESSAGES"].flatMap { Int($0) }.map { max(3, $0) } ?? defaultMessagesPerDevice)
    }
}
