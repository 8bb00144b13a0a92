extension SenderKeySendingState {
    /// Version byte of the serialised form.
    static let serializationVersion: UInt8 = 0x01
    /// `version || channel(16) || key_id(u32) || iteration(u32) || CK(32) || SK_sig seed(32)`.
    static let serializedLength = 1 + 16 + 4 + 4 + 32 + 32

    /// The versioned binary form, for the key store to seal. Secret: never log or store it
    /// unsealed.
    public func serialized() -> SecretBytes {
        SecretWireWriter.build(count: Self.serializedLength) { writer in
            writer.write(Self.serializationVersion)
            writer.write(channel.bytes)
            writer.write(keyID)
            writer.write(iteration)
            writer.write(chainKey)
            writer.write(signingKey.seed)
        }
    }

    /// Restores a state from ``serialized()``.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/truncated(_:expected:actual:)`` or ``ProtocolError/trailingBytes(_:count:)``
    ///   at ``WireLocation/senderKeyState``.
    public init(serialized bytes: SecretBytes) throws {
        var reader = SecretWireReader(bytes, location: .senderKeyState)
        let version = try reader.readUInt8()
        guard version == Self.serializationVersion else { throw ProtocolError.unsupportedVersion(.senderKeyState, value: version) }
        let channel = try reader.readUUID()
        let keyID = try reader.readUInt32()
        let iteration = try reader.readUInt32()
        let chainKey = try reader.readSecret(SenderKeyChain.keyLength)
        let seed = try reader.readSecret(Ed25519.seedLength)
        try reader.requireEnd()
        let signingKey: Ed25519.PrivateKey
        do { signingKey = try Ed25519.PrivateKey(seed: seed) } catch let error as CryptoError { throw ProtocolError.crypto(error) }
        self.init(channel: channel, keyID: keyID, iteration: iteration, chainKey: chainKey, signingKey: signingKey)
    }
}
