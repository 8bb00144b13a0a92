import E2EEKeyStore
import Foundation

extension Account {
    /// Every held device once, with the channels that hold it and when it was first held —
    /// ``pendingRecipients()`` grouped by device, as an app lists them. Our own user's devices
    /// carry the name the server lists for them (one `GET /devices`, skipped when none of ours
    /// is held; no name when the server cannot answer).
    /// - Throws: key store errors.
    public func heldDevices() async throws -> [HeldDevice] {
        let held = try await store.read { [store] db in try store.recipientStore.loadRecipients(state: .held, db) }
        guard !held.isEmpty else { return [] }
        var names: [String: String] = [:]
        if held.contains(where: { $0.userID == userID.rawValue }), let own = try? await api.devices() {
            for device in own { names[device.id.rawValue] = device.name }
        }
        return Dictionary(grouping: held, by: \.deviceID).values.compactMap { standings -> HeldDevice? in
            guard let first = standings.first else { return nil }
            let firstSeen = standings.map(\.updatedAt.microseconds).min() ?? first.updatedAt.microseconds
            return HeldDevice(device: RecipientDevice(userID: UserID(stored: first.userID), deviceID: DeviceID(stored: first.deviceID)),
                              name: names[first.deviceID], firstSeen: StoreTime(microseconds: firstSeen).date,
                              channels: Set(standings.map(\.channelID)).sorted().map { ChannelID(stored: $0) })
        }.sorted { ($0.firstSeen, $0.device.deviceID.rawValue) < ($1.firstSeen, $1.device.deviceID.rawValue) }
    }
}
