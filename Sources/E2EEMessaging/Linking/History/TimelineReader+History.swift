import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension TimelineReader {
    /// Transferred texts this device has since replaced by decrypting the message itself, where
    /// the two texts differ (docs/spec/protocol.md §11.9), oldest first. Replacements with the
    /// same text are forgotten as they are read; the others stay until
    /// ``forgetTransferredTextChanges(_:)``.
    /// - Throws: `KeyStoreError` for a tampered row, GRDB's `DatabaseError`.
    public func transferredTextChanges() async throws -> [TransferredTextChange] {
        let replacements = try await store.historyReplacements()
        let same = replacements.filter { !$0.differs }.map(\.messageID)
        if !same.isEmpty { try await store.forgetHistoryReplacements(messageIDs: same) }
        return replacements.filter(\.differs).map { replacement in
            TransferredTextChange(
                messageID: MessageID(stored: replacement.messageID), channelID: ChannelID(stored: replacement.channelID),
                transferredFrom: replacement.sourceDeviceID.map { DeviceID(stored: $0) },
                transferredText: replacement.transferredPayload.flatMap { try? MessagePayload(json: $0).text },
                decryptedText: replacement.decryptedPayload.flatMap { try? MessagePayload(json: $0).text },
                replacedAt: ServerTimestamp(microseconds: replacement.replacedAt.microseconds))
        }
    }

    /// Forgets the changes of `messageIDs` (once the app has shown them).
    /// - Throws: GRDB's `DatabaseError`.
    public func forgetTransferredTextChanges(_ messageIDs: [MessageID]) async throws {
        try await store.forgetHistoryReplacements(messageIDs: messageIDs.map(\.rawValue))
    }
}
