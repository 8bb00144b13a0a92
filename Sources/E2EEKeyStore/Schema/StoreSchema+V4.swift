import GRDB

extension StoreSchema {
    /// `v4`: what the receiving side of the messaging layer keeps (edits, dedupe keys).
    static func createMessagingReceiveTables(_ db: Database) throws {
    }
}
