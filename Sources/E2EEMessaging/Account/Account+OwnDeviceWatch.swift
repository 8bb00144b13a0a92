import E2EEKeyStore

extension Account {
    /// Notices a new device of our own user without waiting for our next send (issue 43,
    /// docs/spec/protocol.md §5.12): reads our own listing (`GET /devices`, which consumes no
    /// one-time prekey) and, only when it names a device this device has never recorded, reads
    /// our bundles so that the directory pins it — which holds and surfaces it in every channel
    /// where our devices receive keys (``holdDiscoveredDevices(_:)``). Run after each catch-up
    /// and on the membership watch, at most once per ``AccountConfiguration/deviceLifetime`` (a
    /// poll every few seconds costs no extra request each time); best effort (the next send
    /// compares anyway).
    func noticeOwnNewDevices() async {
        let now = ContinuousClock.now
        if let last = ownDevicesNoticedAt, now - last < configuration.deviceLifetime { return }
        ownDevicesNoticedAt = now
        guard let listed = try? await api.devices() else { return }
        let own = userID
        let ids = Set(listed.map(\.id.rawValue)).subtracting([deviceID.rawValue])
        guard !ids.isEmpty else { return }
        let recorded = try? await store.read { [store] db -> Set<String> in
            var recorded = try store.recipientStore.loadKnownDevices(userIDs: [own.rawValue], db)[own.rawValue] ?? []
            for id in ids where try !store.recipientStore.loadRecipients(deviceID: id, db).isEmpty { recorded.insert(id) }
            return recorded
        }
        guard let recorded else { return }
        let fresh = ids.subtracting(recorded)
        guard !fresh.isEmpty, let devices = try? await directory.devices(of: own, refresh: true) else { return }
        // Held here and now (the directory's own hold on first pin runs in the background).
        await holdDiscoveredDevices(devices.filter { fresh.contains($0.deviceID.rawValue) })
    }
}
