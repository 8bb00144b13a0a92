#if DEBUG
import E2EECrypto

extension Account {
    /// Debug builds only (a test hook of protocol text 1.3; release builds have no such method):
    /// sends the link plaintext `bytes` to our own device `deviceID` over their pairwise ratchet,
    /// in the link channel `channelID` (our devices channel when `nil`), through the outbox as
    /// every link message goes. Attack tests use it to send what an honest device never would — a
    /// grant or recert from a device that is not the primary, a replayed certificate.
    /// Returns once the outbox settled (the message posted, refused, or waiting for the server).
    /// - Throws: E2EECrypto's `ProtocolError` when `bytes` is not a well-formed link plaintext,
    ///   ``MessagingError/noPrimaryListed`` when there is no devices channel and none was named,
    ///   as a link message send otherwise (``MessagingError/unknownRecipient(deviceID:)``, ``ServerError``, key store errors).
    public func debugSendLinkPlaintext(_ bytes: [UInt8], to deviceID: DeviceID, in channelID: ChannelID? = nil) async throws {
        let plaintext = try LinkPlaintext.decode(SecretBytes(copying: bytes))
        var channel = channelID
        if channel == nil { channel = try await devicesChannel(create: true) }
        guard let channel else { throw MessagingError.noPrimaryListed }
        try await sendLinkMessage(plaintext, to: deviceID, in: channel)
        await waitForOutboxToSettle()
    }
}
#endif
