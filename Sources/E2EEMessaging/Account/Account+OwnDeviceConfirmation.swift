import E2EEKeyStore

extension Account {
    /// The devices of our own user that the server listed when this device logged in and the
    /// user has not confirmed yet (docs/spec/protocol.md §5.12). They receive keys, as devices
    /// listed at first contact do, but none of their decisions — announcements, a DM's `with`,
    /// tombstones — counts on this device, and their messages are shown flagged, until the user
    /// confirms them (``confirmOwnDevices(_:)``): a device the server added to the account before
    /// this login is in that listing too. Show the list once after login ("these devices are
    /// yours?") with each device's name (``devices(of:)`` of our own user). Empty after registration.
    /// - Throws: key store errors.
    public func unconfirmedOwnDevices() async throws -> [DeviceID] {
        let user = userID
        return try await store.read { [store] db in try store.recipientStore.loadUnconfirmedDevices(userID: user.rawValue, db) }
            .map { DeviceID(stored: $0) }
    }

    /// Confirms devices of our own user the user recognised in ``unconfirmedOwnDevices()``: from
    /// now on their decisions count here like this device's own. A device left unconfirmed can be
    /// declined (``declineDevice(_:)``). Decisions a device announced before it was confirmed are
    /// not applied afterwards. Returns the devices that were waiting for confirmation.
    /// - Throws: key store errors.
    @discardableResult
    public func confirmOwnDevices(_ deviceIDs: [DeviceID]) async throws -> [DeviceID] {
        return try await trustDecision {
            let ids = deviceIDs.map(\.rawValue)
            let confirmed = try await store.write { [store] db in try store.recipientStore.confirmKnownDevices(ids, db) }
            if !confirmed.isEmpty { broadcaster.recipientStandings.signal() }
            return confirmed.map { DeviceID(stored: $0) }
        }
    }
}
