/// `primary_sig`, the primary's signature in a `recert` (docs/spec/protocol.md §10.22):
/// `Ed25519-sign(UMK, "e2ee-primary-v1" || user_id || sender device_id || recipient device_id ||
/// epoch || not_after)`, the epoch and `not_after` those of the recert's certificate. It tells
/// the recipient that the sender holds the user key, so it may take the sender as its primary
/// (a certificate alone is public and proves nothing about who sends it).
public enum PrimarySignature {
    /// The label prefixed to the signed fields.
    public static let label = Array("e2ee-primary-v1".utf8)

    /// Signs as the primary `senderDevice` holding `userKey`, for `recipientDevice`.
    public static func sign(by userKey: Ed25519.PrivateKey, userID: WireUUID, senderDevice: WireUUID, recipientDevice: WireUUID,
                            epoch: UInt32, notAfter: UInt32) -> [UInt8] {
        userKey.signature(for: signedMessage(userID: userID, senderDevice: senderDevice, recipientDevice: recipientDevice,
                                             epoch: epoch, notAfter: notAfter))
    }

    /// Whether `signature` verifies under `userKey` (the recipient's pinned key, not one read
    /// from the certificate) for these fields (libsodium's verification).
    public static func verifies(_ signature: [UInt8], userKey: Ed25519.PublicKey, userID: WireUUID, senderDevice: WireUUID,
                                recipientDevice: WireUUID, epoch: UInt32, notAfter: UInt32) -> Bool {
        userKey.isValidSignature(signature, for: signedMessage(userID: userID, senderDevice: senderDevice, recipientDevice: recipientDevice,
                                                               epoch: epoch, notAfter: notAfter))
    }

    /// `"e2ee-primary-v1" || user_id || sender || recipient || epoch || not_after`.
    static func signedMessage(userID: WireUUID, senderDevice: WireUUID, recipientDevice: WireUUID, epoch: UInt32, notAfter: UInt32) -> [UInt8] {
        var writer = WireWriter()
        writer.write(label)
        writer.write(userID)
        writer.write(senderDevice)
        writer.write(recipientDevice)
        writer.write(epoch)
        writer.write(notAfter)
        return writer.bytes
    }
}
