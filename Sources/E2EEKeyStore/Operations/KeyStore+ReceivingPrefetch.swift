import E2EECrypto
import Foundation
import GRDB

/// What the receive pipeline reads before it decrypts a batch, each in one read transaction
/// (a read costs a hop to a connection, which on a busy device costs more than the lookups
/// themselves): the dedupe set and the sender keys of the batch, then, under the lanes'
/// session locks, the pins and sessions of the devices whose pairwise messages it holds.
extension KeyStore {
    /// The content hashes of the stored rows among `ids` (``storedContentHashes(ids:_:)``), the first ids of the content
    /// hashes stored in `channelID` (``firstMessageIDs(channelID:contentHashes:)``) and the
    /// receiving sender-key states at `senderKeys`, all from one snapshot.
    ///
    /// Read on the writer connection, in a read transaction: its page cache holds the index
    /// pages the last batches wrote, while a reader connection's cache is discarded whenever
    /// another connection commits, so every lookup there starts cold (measured on the Ingest
    /// benchmark: about 1 s less of planning per 100,000 messages). The pipeline makes this
    /// call between batches, when none of its commits is waiting for the writer.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    package func receiveBatchLookup(ids: [String], channelID: String, contentHashes: [ContentDigest],
                                   senderKeys: [SenderKeyAddress]) async throws -> ReceiveBatchLookup {
        try await handOff.run { [self] db in
            var lookup = ReceiveBatchLookup(knownHashes: [:], firstIDs: [:], senderKeys: [:])
            try db.inTransaction(.deferred) {
                for address in senderKeys { lookup.senderKeys[address] = try receiverSenderKeyStore.loadReceiverSenderKey(address, db) }
                lookup.knownHashes = try storedContentHashes(ids: ids, db)
                lookup.firstIDs = try firstMessageIDs(channelID: channelID, contentHashes: contentHashes, db)
                return .commit
            }
            return lookup
        }
    }

    /// Every pin of each of `devices` (``remoteIdentities(deviceID:)``) and the session rows
    /// of each (user, device) of `sessions` (``sessions(userID:deviceID:limit:)``, at most
    /// `sessionLimit` each), from one snapshot.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    package func receiveLaneKeys(devices: Set<String>, sessions: Set<RemoteDeviceKey>, sessionLimit: Int) async throws -> ReceiveLaneKeys {
        try await read { [self] db in
            var pins: [String: [RemoteIdentity]] = [:]
            for device in devices { pins[device] = try remoteIdentities(deviceID: device, db) }
            var rows: [RemoteDeviceKey: [StoredSession]] = [:]
            for key in sessions {
                rows[key] = Array(try sessionStore.loadSessions(userID: key.userID, deviceID: key.deviceID, db).prefix(sessionLimit))
            }
            return ReceiveLaneKeys(pins: pins, sessions: rows)
        }
    }
}

/// The reads of ``KeyStore/receiveBatchLookup(ids:channelID:contentHashes:senderKeys:)``.
package struct ReceiveBatchLookup: Sendable {
    /// The content hash of each stored row asked for, by id (an id not here is not stored).
    public var knownHashes: [String: [UInt8]]
    /// Per content hash already stored in the channel, the first message id.
    public var firstIDs: [ContentDigest: String]
    /// The stored states among the addresses asked for (an address not here has none).
    public var senderKeys: [SenderKeyAddress: ReceiverSenderKey]

    /// Creates the value.
    public init(knownHashes: [String: [UInt8]], firstIDs: [ContentDigest: String], senderKeys: [SenderKeyAddress: ReceiverSenderKey]) {
        self.knownHashes = knownHashes
        self.firstIDs = firstIDs
        self.senderKeys = senderKeys
    }
}

/// A remote (user, device).
package struct RemoteDeviceKey: Sendable, Hashable {
    /// The user.
    public var userID: String
    /// The device.
    public var deviceID: String

    /// Creates the value.
    public init(userID: String, deviceID: String) {
        self.userID = userID
        self.deviceID = deviceID
    }
}

/// The reads of ``KeyStore/receiveLaneKeys(devices:sessions:sessionLimit:)``.
package struct ReceiveLaneKeys: Sendable {
    /// Every pin of each device asked for (empty when none).
    public var pins: [String: [RemoteIdentity]]
    /// The session rows of each (user, device) asked for, current first (empty when none).
    public var sessions: [RemoteDeviceKey: [StoredSession]]

    /// Creates the value.
    public init(pins: [String: [RemoteIdentity]], sessions: [RemoteDeviceKey: [StoredSession]]) {
        self.pins = pins
        self.sessions = sessions
    }
}
