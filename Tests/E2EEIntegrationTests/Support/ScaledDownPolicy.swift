import E2EEMessaging

extension ConnectionPolicy {
    /// docs/spec/sync.md's timings scaled down for tests over loopback: backoff, polling and the
    /// follow-up catch-up in tenths of a second, so a polling phase and its recovery take a
    /// moment, not minutes. A socket counts as stable after 1 s, so drops in quick succession
    /// push a device towards polling.
    static let scaledDown = ConnectionPolicy(
        backoffBase: .milliseconds(40),
        backoffCap: .milliseconds(200),
        pollInterval: .milliseconds(150),
        stableConnection: .seconds(1),
        networkSettle: .milliseconds(100),
        followUpCatchUp: .milliseconds(400),
        attemptTimeout: .seconds(15),
        closeDrainLimit: .seconds(2)
    )
}
