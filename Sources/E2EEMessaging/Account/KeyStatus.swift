/// What an account knows of its own keys (`e2ee-tool keys status`).
public struct KeyStatus: Sendable, Equatable {
    /// One-time prekeys uploaded and not consumed.
    public var publishedOneTimePrekeys: Int
    /// One-time prekeys stored but not yet accepted by the server.
    public var pendingOneTimePrekeys: Int
    /// One-time prekeys consumed by a prekey message (kept for the grace window).
    public var consumedOneTimePrekeys: Int
    /// The server's count for our device (`one_time_pre_key_count`; the reference server never
    /// lowers it), or `nil` when it has no bundle for us.
    public var serverOneTimePrekeys: Int?
    /// Seconds since the current signed prekey was made (`nil`: none).
    public var signedPrekeyAgeSeconds: Int64?
    /// The id of the current signed prekey.
    public var signedPrekeyID: UInt32?
    /// Our identity fingerprint: the 30 safety-number digits of our own devices' blobs.
    public var identityFingerprint: String?

    /// Creates the value.
    public init(publishedOneTimePrekeys: Int, pendingOneTimePrekeys: Int, consumedOneTimePrekeys: Int, serverOneTimePrekeys: Int?,
                signedPrekeyAgeSeconds: Int64?, signedPrekeyID: UInt32?, identityFingerprint: String?) {
        self.publishedOneTimePrekeys = publishedOneTimePrekeys
        self.pendingOneTimePrekeys = pendingOneTimePrekeys
        self.consumedOneTimePrekeys = consumedOneTimePrekeys
        self.serverOneTimePrekeys = serverOneTimePrekeys
        self.signedPrekeyAgeSeconds = signedPrekeyAgeSeconds
        self.signedPrekeyID = signedPrekeyID
        self.identityFingerprint = identityFingerprint
    }
}

/// What ``Account/bootstrapKeys(oneTimePrekeys:)`` did.
public enum KeyBootstrapResult: Sendable, Equatable {
    /// Keys were made (or completed) and uploaded; `oneTimePrekeys` are on offer now.
    case uploaded(oneTimePrekeys: Int)
    /// Everything was in place locally and on the server: nothing was changed.
    case alreadyBootstrapped
}
