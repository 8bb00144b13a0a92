import E2EEKeyStore

/// The configuration values the sync engine reads, taken from ``AccountConfiguration`` once when
/// the account is made: the engine depends on these, not on the whole configuration.
struct SyncSettings: Sendable {
    /// The time now (the account's clock: tests move it).
    var now: @Sendable () -> StoreTime
    /// At most this many messages per channel catch-up (``AccountConfiguration/catchUpLimit``).
    var catchUpLimit: Int
    /// At most this many bytes of content per channel catch-up (``AccountConfiguration/catchUpByteLimit``).
    var catchUpByteLimit: Int
    /// How far the verified mark stays behind the newest message read (``AccountConfiguration/catchUpOverlap``).
    var catchUpOverlap: Duration
    /// How far past this device's clock a mark may be set (``AccountConfiguration/maxClockSkew``).
    var maxClockSkew: Duration

    /// The sync values of `configuration`.
    init(_ configuration: AccountConfiguration) {
        self.now = configuration.now
        self.catchUpLimit = configuration.catchUpLimit
        self.catchUpByteLimit = configuration.catchUpByteLimit
        self.catchUpOverlap = configuration.catchUpOverlap
        self.maxClockSkew = configuration.maxClockSkew
    }
}
