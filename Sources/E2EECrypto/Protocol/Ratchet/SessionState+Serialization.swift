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
        return SecretWireWriter.build(count: length) { encoder in
            encoder.write(Self.storageVersion)
            encoder.write(role.rawValue)
            encoder.write(localIdentity.bytes)
            encoder.write(remoteIdentity.bytes)
            encoder.write(baseKey.rawRepresentation)
            encoder.write(signedPrekeyID)
            encoder.write(oneTimePrekeyID)
            encoder.write(awaitingReply)
            encoder.write(rootKey)
            encoder.write(sendingRatchet.rawRepresentation)
            encoder.writeOptional(remoteRatchet?.rawRepresentation)
            encoder.writeOptional(sendingChain)
            encoder.write(sendCount)
            encoder.write(previousSendCount)
            encoder.writeOptional(receivingChain)
            encoder.write(receiveCount)
            encoder.write(UInt32(skipped.count))
            for entry in skipped.entries {
                encoder.write(entry.ratchetKey.rawRepresentation)
                encoder.write(entry.counter)
                encoder.write(entry.messageKey)
            }
        }
    }

    /// Restores ``serialized()`` output, checking every field as strictly as received data.
    /// - Throws: at ``WireLocation/sessionState``: ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/trailingBytes(_:count:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` (role, flag, ids),
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` (skipped-key count); key faults as
    ///   ``ProtocolError/invalidKey(_:)``.
    public init(serialized: some ByteView) throws {
        self = try SecretWireReader.decode(serialized, location: .sessionState) { reader in
            try SessionState(reading: &reader)
        }
    }

    private init(reading reader: inout SecretWireReader) throws {
        let location = WireLocation.sessionState
        try reader.requireVersion(Self.storageVersion)
        let roleByte = try reader.readUInt8()
        guard let role = Role(rawValue: roleByte) else { throw ProtocolError.malformed(location, reason: "role \(roleByte)") }
        let localIdentity = try IdentityBlob(bytes: reader.readPublic(IdentityBlob.length))
        let remoteIdentity = try IdentityBlob(bytes: reader.readPublic(IdentityBlob.length))
        let baseKey = try X25519.PublicKey.received(reader.readPublic(X25519.keyLength), at: location)
        let signedPrekeyID = try reader.readUInt32()
        guard signedPrekeyID != 0 else { throw ProtocolError.malformed(location, reason: "spk_id 0") }
        let oneTimePrekeyID = try reader.readUInt32()
        let awaitingReply = try reader.readFlag()
        let rootKey = try reader.readSecret(32)
        let sendingRatchet = try X25519.PrivateKey(rawRepresentation: reader.readSecret(X25519.keyLength))
        let remoteRatchet = try reader.readOptional().map { try X25519.PublicKey.received($0.unprotectedCopy(), at: location) }
        let sendingChain = try reader.readOptional()
        let sendCount = try reader.readUInt32()
        let previousSendCount = try reader.readUInt32()
        let receivingChain = try reader.readOptional()
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
            let ratchetKey = try X25519.PublicKey.received(reader.readPublic(X25519.keyLength), at: location)
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
