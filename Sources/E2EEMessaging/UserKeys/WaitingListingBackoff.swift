/// When to read again the listing of a user whose messages wait for a device to be linked
/// (docs/spec/protocol.md §10.8): the first re-read an hour after the first, each later one
/// twice as far from the one before, up to a day, for as long as the user has messages
/// waiting; a user with nothing waiting any more starts again at an hour. A device that stays
/// unlinked costs its contacts at most one listing a day, not one an hour for 30 days.
struct WaitingListingBackoff: Sendable {
    /// The shortest time between two re-reads of one user (seconds).
    static let firstInterval: Int64 = 3_600
    /// The longest time between two re-reads of one user (seconds).
    static let longestInterval: Int64 = 86_400

    private struct Reading: Sendable {
        var at: Int64
        var interval: Int64
    }

    private var readings: [String: Reading] = [:]

    /// The users of `waiting` whose listing is due at `now`, recording each as read now; users
    /// no longer waiting are forgotten.
    mutating func due(among waiting: [String], now: Int64) -> [String] {
        let waitingSet = Set(waiting)
        readings = readings.filter { waitingSet.contains($0.key) }
        var due: [String] = []
        for user in waiting {
            if let reading = readings[user] {
                guard now - reading.at >= reading.interval || now < reading.at else { continue }
                readings[user] = Reading(at: now, interval: min(reading.interval * 2, Self.longestInterval))
            } else {
                readings[user] = Reading(at: now, interval: Self.firstInterval)
            }
            due.append(user)
        }
        return due
    }
}
