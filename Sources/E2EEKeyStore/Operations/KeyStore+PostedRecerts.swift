import Foundation
import GRDB

/// The recert a primary last posted to one kept device (docs/spec/protocol.md §10.13).
@_spi(StoreInternals) public struct PostedRecert: Sendable, Equatable {
    /// The kept device's id.
    public var deviceID: String
    /// SHA-256 of the certificate the recert carried.
    public var certificateDigest: [UInt8]
    /// The envelope as posted (the link envelope's content).
    public var envelope: String
    /// When it was last posted, unix seconds.
    public var postedAt: Int64

    /// A posted recert.
    public init(deviceID: String, certificateDigest: [UInt8], envelope: String, postedAt: Int64) {
        self.deviceID = deviceID
        self.certificateDigest = certificateDigest
        self.envelope = envelope
        self.postedAt = postedAt
    }
}

extension KeyStore {
    /// The recert last posted to `deviceID`, if any.
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func postedRecert(to deviceID: String) async throws -> PostedRecert? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT certificate_digest, envelope, posted_at FROM posted_recerts WHERE device_id = ?",
                                             arguments: [deviceID]) else { return nil }
            let digest: Data = row["certificate_digest"]
            return PostedRecert(deviceID: deviceID, certificateDigest: [UInt8](digest), envelope: row["envelope"], postedAt: row["posted_at"])
        }
    }

    /// Records `recert` as the one last posted to its device, replacing the earlier one.
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func recordPostedRecert(_ recert: PostedRecert) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO posted_recerts (device_id, certificate_digest, envelope, posted_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (device_id) DO UPDATE SET certificate_digest = excluded.certificate_digest,
                    envelope = excluded.envelope, posted_at = excluded.posted_at
                """, arguments: [recert.deviceID, Data(recert.certificateDigest), recert.envelope, recert.postedAt])
        }
    }
}
