import E2EECrypto

/// A remote device's pairwise sessions after an encryption or a decryption: the one type both
/// commits carry for a session change (``OutgoingCommit/sessions``, ``ReceiveWrite/session``),
/// stored by ``SessionStore/storeUpdate(_:at:_:)`` inside the commit's transaction.
///
/// One row per ratchet state (the store's convention): ``states`` lists the current state
/// first, then archived ones most recently used first. Rows not named keep their state. A send
/// names the one state it advanced, the device's current one; a receive lane names every state
/// of the record it decrypted with (a new session from a prekey message is a new row id).
@_spi(StoreInternals) public struct SessionUpdate: Sendable {
    /// One ratchet state of the device's sessions.
    public struct State: Sendable {
        /// The session row's id: an existing row is updated, a new id inserted.
        public var sessionID: String
        /// The serialised state (sealed at rest).
        public var state: SecretBytes
        /// Whether it is the device's current session.
        public var isCurrent: Bool

        /// Creates the value.
        public init(sessionID: String, state: SecretBytes, isCurrent: Bool) {
            self.sessionID = sessionID
            self.state = state
            self.isCurrent = isCurrent
        }
    }

    /// The remote user.
    public var userID: String
    /// The remote device.
    public var deviceID: String
    /// The states to store, current first.
    public var states: [State]

    /// Creates the value.
    public init(userID: String, deviceID: String, states: [State]) {
        self.userID = userID
        self.deviceID = deviceID
        self.states = states
    }
}
