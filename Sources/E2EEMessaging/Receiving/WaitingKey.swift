@_spi(StoreInternals) import E2EEKeyStore

/// What a pending message waits for, as stored in `pending_ciphertexts.waiting_for` (public
/// ids only). When the key arrives, the rows waiting for exactly this text are re-driven.
enum WaitingKey {
    /// A group message whose sender key distribution has not arrived.
    static func senderKey(_ address: SenderKeyAddress) -> String { "sender_key:\(address.channelID)/\(address.senderDeviceID)/\(address.keyID)" }

    /// A pairwise normal message with no session for the device yet.
    static func session(userID: UserID, deviceID: DeviceID) -> String { "session:\(userID)/\(deviceID)" }

    /// A prekey message from a device not pinned yet whose listed identity could not be fetched.
    static func identity(userID: UserID, deviceID: DeviceID) -> String { "identity:\(userID)/\(deviceID)" }

    /// Another user's message in a DM or group this device has not accepted (a request, or
    /// declined): re-driven when the app accepts or opens it (and at the end of each sync).
    static func request(channelID: ChannelID) -> String { "request:\(channelID)" }

    /// A message from a device of a user with a user key that is not linked under the pinned key
    /// (docs/spec/protocol.md §10.8): re-driven once the device is linked, or the user has no key.
    static func unlinked(userID: UserID, deviceID: DeviceID) -> String { "unlinked:\(userID)/\(deviceID)" }

    /// A message from another user while this new device waits for its primary's trust part
    /// (docs/spec/protocol.md §11.1): re-driven once the trust part of transfer `transferID`
    /// commits, or the transfer fails or is cancelled (then the normal rules apply).
    static func transfer(_ transferID: String) -> String { "transfer:\(transferID)" }
}
