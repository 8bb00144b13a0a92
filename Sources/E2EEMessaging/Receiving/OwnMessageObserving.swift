/// The sending side's answer to a posted message that claims this device as its sender: the
/// receive pipeline never decrypts those (our own envelopes are not addressed to us), it asks
/// the outbox instead.
@_spi(Benchmarks) public protocol OwnMessageObserving: Sendable {
    /// A message with our `sender_device_id` was seen (socket echo or REST page). Returns
    /// `true` when the outbox recognises it (by server id or, after an unknown POST outcome, by
    /// content hash) and has recorded it as delivered; `false` means this device never sent it.
    func ownMessageSeen(_ message: ServerMessage) async throws -> Bool
}
