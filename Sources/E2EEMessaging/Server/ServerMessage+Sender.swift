extension ServerMessage {
    /// Whether the server names (`userID`, `deviceID`) as the sender: `sender_id` and
    /// `sender_device_id` both, compared lower-cased. A device id alone proves nothing — anyone
    /// can post claiming any `sender_device_id` (T19).
    public func isFrom(userID: UserID, deviceID: DeviceID) -> Bool {
        senderID == userID && senderDeviceID == deviceID
    }
}
