@_spi(StoreInternals) import E2EEKeyStore

/// Keeps this device's clock readings of docs/spec/protocol.md §10.19 from its own posts: the
/// reading at each 201 becomes the latest post's reading; one within a day of the post's
/// `created_at` raises the agreed reading and clears a suspect clock, one further off makes the
/// clock suspect (surfaced once, ``AccountEvent/clockSuspect``). The server's time is only
/// compared, never used as the time.
struct ClockWatch: Sendable {
    let store: KeyStore
    let events: EventBroadcaster
    /// The system clock in unix seconds.
    let systemSeconds: @Sendable () -> Int64
    /// Keeps `clockSuspect` to once per agreed reading, shared with ``UserKeyDirectory``.
    let suspectLatch: ClockSuspectLatch

    /// Records the 201 of a post the server dated `createdAt` (microseconds since the epoch).
    /// - Throws: key store errors.
    func recordPost(createdAt: Int64) async throws {
        let reading = systemSeconds()
        let (becameSuspect, wentBack, agreedReading) = try await store.write { [store] db in
            let contacts = store.contactKeyStore
            var readings = try contacts.loadClock(now: reading, db)
            let wentBack = UserKeyDirectory.advance(&readings, now: reading)
            let wasSuspect = readings.suspect
            Self.apply(&readings, reading: reading, serverSeconds: createdAt / 1_000_000)
            try contacts.storeClock(readings, db)
            return (readings.suspect && !wasSuspect, wentBack, readings.agreedReading)
        }
        if wentBack { events.publish(.clockWentBack) }
        if becameSuspect, suspectLatch.shouldSurface(agreedReading: agreedReading) { events.publish(.clockSuspect) }
    }

    /// The rule for one post: `reading` taken at its 201, `serverSeconds` its `created_at`.
    static func apply(_ readings: inout ClockReadings, reading: Int64, serverSeconds: Int64) {
        readings.latestPostReading = reading
        if abs(reading - serverSeconds) <= UserKeyClock.day {
            readings.agreedReading = max(readings.agreedReading ?? reading, reading)
            readings.suspect = false
        } else {
            readings.suspect = true
        }
    }
}
