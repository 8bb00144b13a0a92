import E2EEKeyStore

extension MessageProcessor {
    /// A DM message must come from one of the DM's two fixed participants (docs/spec/protocol.md §5, §9):
    /// checked before any key is used, so a refusal changes no state. A DM whose participants
    /// are not fixed yet accepts its users as the server lists them.
    /// - Throws: ``ReceiveRefusal`` (`notAParticipant`), key store errors.
    func checkParticipant(_ userID: String, in channelID: String) async throws {
        let participants = try await store.read { [store] db in try store.recipientStore.loadParticipants(channelID: channelID, db) }
        guard participants.isEmpty || participants.contains(userID.lowercased()) else { throw ReceiveRefusal(.notAParticipant) }
    }
}
