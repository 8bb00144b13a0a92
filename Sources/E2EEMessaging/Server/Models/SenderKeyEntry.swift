/// One row of `GET /keys/channels/{id}/sender-keys` (public data only: readable by anyone).
public struct SenderKeyEntry: Sendable, Equatable, Codable {
    /// The device the key belongs to.
    public var deviceID: DeviceID
    /// The public sender key.
    public var senderKeyPublic: String
    /// The `chain_key` field (docs/spec/protocol.md §4: never a secret).
    public var chainKey: String
    /// The server's message number.
    public var messageNumber: Int?

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", senderKeyPublic = "sender_key_public", chainKey = "chain_key", messageNumber = "message_number"
    }

    /// An entry from its parts.
    public init(deviceID: DeviceID, senderKeyPublic: String, chainKey: String, messageNumber: Int? = nil) {
        self.deviceID = deviceID
        self.senderKeyPublic = senderKeyPublic
        self.chainKey = chainKey
        self.messageNumber = messageNumber
    }
}
