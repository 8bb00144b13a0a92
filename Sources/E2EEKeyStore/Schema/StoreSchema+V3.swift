import GRDB

extension StoreSchema {
    /// `v3`: what the sending side of the messaging layer keeps (channels, members, sender-key
    /// distribution, outbox kinds).
    static func createMessagingSendTables(_ db: Database) throws {
    }
}
