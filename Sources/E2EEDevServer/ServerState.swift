import Foundation
import GRDB
import Logging

/// Everything the routes share: the database, the configuration, the faults and the event hub.
struct ServerState: Sendable {
    let database: DatabaseQueue
    let configuration: DevServerConfiguration
    let faults: FaultInjector
    let hub: EventHub
    let rateLimiter: RateLimiter
    let connectionMarks: ConnectionMarks
    let pendingSockets: PendingSockets
    let logger: Logger

    var clock: DevServerClock { configuration.clock }
    var quirks: DevServerQuirks { configuration.quirks }
    var now: Int64 { clock.nowMicros }

    /// A fresh lowercase UUID string.
    func newID() -> String { UUID().uuidString.lowercased() }

    /// The timestamp format of WebSocket payloads.
    var socketSuffix: Timestamp.Suffix { quirks.socketTimestampsWithOffset ? .offset : .zulu }
}

