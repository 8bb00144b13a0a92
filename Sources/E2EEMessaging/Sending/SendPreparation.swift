import E2EEKeyStore

/// What must happen before anything is encrypted for a channel (docs/spec/protocol.md §3,
/// "Detecting a rollback": the channel caught up by this process, keys renewed after a detected
/// rollback). The account installs it once it exists, so that parts built before it — the
/// outbox encrypting drafts that waited for the server — run the same check as a fresh send.
actor SendPreparation {
    private var prepare: (@Sendable (ChannelID) async throws -> Void)?

    /// Installs the check (``Account/prepareToSend(channelID:)``).
    func install(_ prepare: @escaping @Sendable (ChannelID) async throws -> Void) {
        self.prepare = prepare
    }

    /// Runs the check for `channelID`.
    /// - Throws: what the check throws; ``ServerError/transport(_:)`` before it is installed,
    ///   so that the caller keeps waiting as for an unreachable server.
    func run(channelID: ChannelID) async throws {
        guard let prepare else { throw ServerError.transport("the account is not ready to send yet") }
        try await prepare(channelID)
    }
}
