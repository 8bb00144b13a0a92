/// The account as its sync engine's host (``SyncHost``): the engine decides when channels are
/// re-read, keys maintained and arrivals admitted; the account, which owns those parts, does it.
/// Every other requirement is met by the account's own calls of the same name.
extension Account: SyncHost {
    /// A catch-up reached the server: outbox entries waiting for a reachable server go out.
    func serverAnswered() async {
        await outbox.serverAnswered()
    }
}
