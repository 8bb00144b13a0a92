import E2EEKeyStore

extension Account {
    /// Refuses a send in a channel this device did not create, open or accept (a request, or
    /// one it declined) before anything is queued (docs/spec/protocol.md §5.9).
    /// - Throws: ``MessagingError/channelNotAccepted(channelID:)``, key store errors.
    func requireAccepted(_ channelID: ChannelID) async throws {
        let pin = try await store.read { [store] db in try store.channelTrustStore.loadPin(channelID: channelID.rawValue, db) }
        guard let pin, pin.standing.isOpen else { throw MessagingError.channelNotAccepted(channelID: channelID) }
    }
}
