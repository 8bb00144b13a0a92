import E2EECrypto

/// A message refused as too far ahead asks for a new ratchet with its sending device
/// (docs/spec/protocol.md §3.17): stored with the refusal (``ReceiveWrite/sessionRestart``),
/// honoured at this device's next send to that device.
@_spi(StoreInternals) public struct SessionRestartRequest: Sendable, Equatable {
    /// The remote user.
    public var userID: String
    /// The remote device whose ratchet is to restart.
    public var deviceID: String
    /// When the refused message was processed (this device's clock).
    public var requestedAt: StoreTime

    /// Creates the value.
    public init(userID: String, deviceID: String, requestedAt: StoreTime) {
        self.userID = userID
        self.deviceID = deviceID
        self.requestedAt = requestedAt
    }
}

/// The ratchet restarts with one remote device (docs/spec/protocol.md §3.17, schema `v18`): a
/// restart asked and not done yet, and when the last one was done. Public facts only.
package struct SessionRestart: Sendable, Equatable {
    /// The remote user.
    public var userID: String
    /// The remote device.
    public var deviceID: String
    /// When a refused message first asked for a restart not done yet (nil: none asked).
    public var requestedAt: StoreTime?
    /// When this device last restarted the ratchet with the device (nil: never).
    public var restartedAt: StoreTime?

    /// Creates the value.
    public init(userID: String, deviceID: String, requestedAt: StoreTime?, restartedAt: StoreTime?) {
        self.userID = userID
        self.deviceID = deviceID
        self.requestedAt = requestedAt
        self.restartedAt = restartedAt
    }

    /// Whether a send at `now` restarts the ratchet: a restart is asked, and the last one was at
    /// least `ProtocolLimits.minRatchetRestartIntervalSeconds` ago on this device's clock. A
    /// last restart dated after `now` (the clock was set back) counts as long enough ago: the
    /// stored time cannot be trusted, and waiting for the clock to reach it again could block
    /// restarts for as long as the clock was off.
    public func isDue(at now: StoreTime) -> Bool {
        guard requestedAt != nil else { return false }
        guard let restartedAt else { return true }
        let interval = ProtocolLimits.minRatchetRestartIntervalSeconds * 1_000_000
        // The stored time is read from the file: no arithmetic on it may trap.
        let (elapsed, overflow) = now.microseconds.subtractingReportingOverflow(restartedAt.microseconds)
        return overflow || elapsed < 0 || elapsed >= interval
    }
}
