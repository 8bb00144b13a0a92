@testable import E2EEMessaging
import Testing

/// Links a new login to the primary with the two codes, as ``IntegrationTests/LinkCeremonyIntegrationTests``
/// does, with a hook run after the new device posted its `ack(0)` and before the primary reads
/// it (where a test mounts a fault on the transfer's first messages).
enum TransferLink {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func link(_ laptop: Account, to primary: Account, beforeTransfer: () async throws -> Void) async throws {
        try await IntegrationTests.LinkCeremonyIntegrationTests.link(laptop, to: primary, beforeTransfer: beforeTransfer)
    }
}
