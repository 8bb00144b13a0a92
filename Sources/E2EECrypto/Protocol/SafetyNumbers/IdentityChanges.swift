/// How a user's listed devices differ from the identities pinned for them (docs/spec/protocol.md §7):
/// trust on first use, and every change surfaced, never silently accepted.
public struct IdentityChanges: Sendable, Equatable {
    /// Listed devices with no pin yet: surface as new devices (then pin them).
    public let newDevices: [WireUUID]
    /// Listed devices whose blob differs from the pin: identity changes, refused for sessions
    /// and surfaced to the app; the pin is not replaced silently.
    public let changedDevices: [WireUUID]
    /// Pinned devices no longer listed: surface (the sender key must rotate, §4).
    public let removedDevices: [WireUUID]

    /// Compares the pinned identity blobs with the listed ones; each list is sorted bytewise.
    public init(pinned: [WireUUID: [UInt8]], listed: [WireUUID: [UInt8]]) {
        var new: [WireUUID] = []
        var changed: [WireUUID] = []
        for (device, blob) in listed {
            guard let pin = pinned[device] else {
                new.append(device)
                continue
            }
            if pin != blob { changed.append(device) }
        }
        newDevices = new.sorted()
        changedDevices = changed.sorted()
        removedDevices = pinned.keys.filter { listed[$0] == nil }.sorted()
    }

    /// `true` when the listed devices are exactly the pinned ones with the pinned identities.
    public var isEmpty: Bool { newDevices.isEmpty && changedDevices.isEmpty && removedDevices.isEmpty }
}
