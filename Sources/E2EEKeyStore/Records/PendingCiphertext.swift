/// A ciphertext waiting for its key; its timeline row is in state `.pendingKey`.
package struct PendingCiphertext: Sendable, Equatable {
    /// The server message id.
    public var messageID: String
    /// The channel.
    public var channelID: String
    /// The sender device the server names.
    public var senderDeviceID: String?
    /// The exact `content` string (an envelope: public, already on the server).
    public var content: String
    /// What it waits for (for instance `sender_key:<device>/<keyID>` or `session:<device>`);
    /// public ids only.
    public var waitingFor: String
    /// When it was queued.
    public var receivedAt: StoreTime

    /// Creates the value.
    public init(messageID: String, channelID: String, senderDeviceID: String?, content: String, waitingFor: String, receivedAt: StoreTime) {
        self.messageID = messageID
        self.channelID = channelID
        self.senderDeviceID = senderDeviceID
        self.content = content
        self.waitingFor = waitingFor
        self.receivedAt = receivedAt
    }
}
