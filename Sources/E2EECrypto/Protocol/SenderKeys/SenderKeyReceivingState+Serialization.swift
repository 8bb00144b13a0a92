extension SenderKeyReceivingState {
    /// Version byte of the serialised form.
    static let serializationVersion: UInt8 = 0x01
    /// Fixed part: version, channel, device, key id, installed and next iteration, CK,
    /// SK_sig_pub, installed-at, last-use flag and time, eviction flag and iteration, count.
    private static let fixedLength = 1 + 16 + 16 + 4 + 4 + 4 + 32 + 32 + 8 + 1 + 8 + 1 + 4 + 2
    /// One skipped key: iteration and message key.
    private static let skippedEntryLength = 4 + 32

    /// The versioned binary form (deterministic: skipped keys in ascending iteration order), for
    /// the key store to seal. Secret: never log or store it unsealed.
    public func serialized() -> SecretBytes {
        let iterations = skippedIterations
        return SecretWireWriter.build(count: Self.fixedLength + iterations.count * Self.skippedEntryLength) { writer in
            writer.write(Self.serializationVersion)
            writer.write(channel.bytes)
            writer.write(senderDevice.bytes)
            writer.write(keyID)
            writer.write(installedIteration)
            writer.write(nextIteration)
            writer.write(chainKey)
            writer.write(signingPublicKey.rawRepresentation)
            writer.write(installedAt)
            writer.write(UInt8(lastDecryptedAt == nil ? 0 : 1))
            writer.write(lastDecryptedAt ?? 0)
            writer.write(UInt8(evictedThrough == nil ? 0 : 1))
            writer.write(evictedThrough ?? 0)
            writer.write(UInt16(iterations.count))
            for iteration in iterations {
                writer.write(iteration)
                if let key = skippedKeys[iteration] { writer.write(key) }
            }
        }
    }

    /// Restores a state from ``serialized()``, strictly.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)``, ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/limitExceeded(_:limit:actual:)``
    ///   (too many skipped keys), ``ProtocolError/invalidKey(_:)`` or
    ///   ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/senderKeyState``.
    public init(serialized bytes: SecretBytes) throws {
        var reader = SecretWireReader(bytes, location: .senderKeyState)
        let version = try reader.readUInt8()
        guard version == Self.serializationVersion else { throw ProtocolError.unsupportedVersion(.senderKeyState, value: version) }
        let channel = try reader.readUUID()
        let device = try reader.readUUID()
        let keyID = try reader.readUInt32()
        let installedIteration = try reader.readUInt32()
        let nextIteration = try reader.readUInt32()
        let chainKey = try reader.readSecret(SenderKeyChain.keyLength)
        let signing = try Ed25519.PublicKey.received(reader.readPublic(Ed25519.publicKeyLength), at: .senderKeyState)
        let installedAt = try reader.readInt64()
        let lastDecryptedAt = try Self.optional(flag: reader.readUInt8(), value: reader.readInt64())
        let evictedThrough = try Self.optional(flag: reader.readUInt8(), value: reader.readUInt32())
        let count = Int(try reader.readUInt16())
        guard count <= ProtocolLimits.maxStoredSenderKeySkippedKeys else {
            throw ProtocolError.limitExceeded(.senderKeyState, limit: ProtocolLimits.maxStoredSenderKeySkippedKeys, actual: count)
        }
        guard installedIteration <= nextIteration else { throw ProtocolError.malformed(.senderKeyState, reason: "installed after next iteration") }
        var skipped: [UInt32: SecretBytes] = [:]
        var previous: UInt32?
        for _ in 0..<count {
            let iteration = try reader.readUInt32()
            guard iteration < nextIteration, previous.map({ iteration > $0 }) ?? true else {
                throw ProtocolError.malformed(.senderKeyState, reason: "skipped iterations out of order or range")
            }
            skipped[iteration] = try reader.readSecret(SenderKeyChain.keyLength)
            previous = iteration
        }
        try reader.requireEnd()
        self.init(
            channel: channel, senderDevice: device, keyID: keyID, installedIteration: installedIteration,
            nextIteration: nextIteration, chainKey: chainKey, signingPublicKey: signing, skippedKeys: skipped,
            evictedThrough: evictedThrough, installedAt: installedAt, lastDecryptedAt: lastDecryptedAt
        )
    }

    /// An optional field: flag 0 with a zero value (canonical absence), or flag 1 with a value.
    private static func optional<T: BinaryInteger>(flag: UInt8, value: T) throws -> T? {
        switch flag {
        case 0 where value == 0: nil
        case 1: value
        default: throw ProtocolError.malformed(.senderKeyState, reason: "flag byte \(flag)")
        }
    }
}
