extension SessionState {
    static let storageVersion: UInt8 = 0x01
    private static let skippedEntryLength = X25519.keyLength + 4 + 32

    /// The stored form, version `0x01`:
    /// `version || role || local blob(65) || remote blob(65) || base key(32) || spk_id || opk_id ||
    /// awaiting flag || root key(32) || sending ratchet scalar(32) || [flag || remote ratchet(32)] ||
    /// [flag || sending chain(32)] || N_s || PN || [flag || receiving chain(32)] || N_r ||
    /// count(u32) || count × (ratchet key(32) || index(u32) || message key(32))`, where `[flag || x]`
    /// is `0` alone or `1 || x`. Returned as ``SecretBytes`` for the key store to seal.
    public func serialized() -> SecretBytes {
        let optionals = [remoteRatchet != nil, sendingChain != nil, receivingChain != nil].filter { $0 }.count
        let length = 1 + 1 + 2 * IdentityBlob.length + X25519.keyLength + 4 + 4 + 1 + 32 + X25519.keyLength
            + 3 + optionals * 32 + 4 + 4 + 4 + 4 + skipped.count * Self.skippedEntryLength
        var encoder = SecretEncoder(capacity: length)
        encoder.append(Self.storageVersion)
        encoder.append(role.rawValue)
        encoder.append(contentsOf: localIdentity.bytes)
        encoder.append(contentsOf: remoteIdentity.bytes)
        encoder.append(contentsOf: baseKey.rawRepresentation)
        encoder.append(signedPrekeyID)
        encoder.append(oneTimePrekeyID)
        encoder.append(awaitingReply)
        encoder.append(contentsOf: rootKey)
        encoder.append(contentsOf: sendingRatchet.rawRepresentation)
        encoder.appendOptional(remoteRatchet?.rawRepresentation)
        encoder.appendOptional(sendingChain)
        encoder.append(sendCount)
        encoder.append(previousSendCount)
        encoder.appendOptional(receivingChain)
        encoder.append(receiveCount)
        encoder.append(UInt32(skipped.count))
        for entry in skipped.entries {
            encoder.append(contentsOf: entry.ratchetKey.rawRepresentation)
            encoder.append(entry.counter)
            encoder.append(contentsOf: entry.messageKey)
        }
        return encoder.finish()
    }

    /// Restores ``serialized()`` output, checking every field as strictly as received data.
    /// - Throws: at ``WireLocation/sessionState``: ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/trailingBytes(_:count:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` (role, flag, ids),
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` (skipped-key count); key faults as
    ///   ``ProtocolError/invalidKey(_:)``.
    public init(serialized: some ByteView) throws {
        self = try SecretDecoding.decode(serialized, location: .sessionState) { reader in
            try SessionState(reading: &reader)
        }
    }

    private init(reading reader: inout WireReader) throws {
        let location = WireLocation.sessionState
        try SecretDecoding.requireVersion(&reader, Self.storageVersion, at: location)
        let roleByte = try reader.readUInt8()
        guard let role = Role(rawValue: roleByte) else { throw ProtocolError.malformed(location, reason: "role \(roleByte)") }
        let localIdentity = try IdentityBlob(reading: &reader)
        let remoteIdentity = try IdentityBlob(reading: &reader)
        let baseKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: location)
        let signedPrekeyID = try reader.readUInt32()
        guard signedPrekeyID != 0 else { throw ProtocolError.malformed(location, reason: "spk_id 0") }
        let oneTimePrekeyID = try reader.readUInt32()
        let awaitingReply = try reader.readFlag(at: location)
        let rootKey = try reader.readSecret(32)
        let sendingRatchet = try X25519.PrivateKey(rawRepresentation: reader.readSecret(X25519.keyLength))
        let remoteRatchet = try reader.readOptional(location).map { try X25519.PublicKey.received($0.unprotectedCopy(), at: location) }
        let sendingChain = try reader.readOptional(location)
        let sendCount = try reader.readUInt32()
        let previousSendCount = try reader.readUInt32()
        let receivingChain = try reader.readOptional(location)
        let receiveCount = try reader.readUInt32()
        let count = Int(try reader.readUInt32())
        guard count <= ProtocolLimits.maxStoredSkippedKeysPerState else {
            throw ProtocolError.limitExceeded(location, limit: ProtocolLimits.maxStoredSkippedKeysPerState, actual: count)
        }
        guard reader.remainingCount >= count * Self.skippedEntryLength else {
            throw ProtocolError.truncated(location, expected: reader.offset + count * Self.skippedEntryLength, actual: reader.offset + reader.remainingCount)
        }
        var entries: [SkippedMessageKeys.Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let ratchetKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: location)
            let counter = try reader.readUInt32()
            entries.append(.init(ratchetKey: ratchetKey, counter: counter, messageKey: try reader.readSecret(32)))
        }
        self.init(role: role, localIdentity: localIdentity, remoteIdentity: remoteIdentity, baseKey: baseKey,
                  signedPrekeyID: signedPrekeyID, oneTimePrekeyID: oneTimePrekeyID, awaitingReply: awaitingReply,
                  rootKey: rootKey, sendingRatchet: sendingRatchet, remoteRatchet: remoteRatchet,
                  sendingChain: sendingChain, sendCount: sendCount, previousSendCount: previousSendCount,
                  receivingChain: receivingChain, receiveCount: receiveCount, skipped: SkippedMessageKeys(entries: entries))
    }
}

extension SecretEncoder {
    /// `0` for `nil`, else `1 || value`.
    mutating func appendOptional(_ value: (some ByteView)?) {
        guard let value else { return append(false) }
        append(true)
        append(contentsOf: value)
    }
}

extension WireReader {
    /// A 32-byte value behind a presence flag, as written by ``SecretEncoder/appendOptional(_:)``.
    mutating func readOptional(_ location: WireLocation) throws -> SecretBytes? {
        try readFlag(at: location) ? try readSecret(32) : nil
    }
}
