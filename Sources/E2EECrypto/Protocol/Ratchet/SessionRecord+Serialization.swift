extension SessionRecord {
    static let storageVersion: UInt8 = 0x01

    /// The stored form, version `0x01`: `version || archived count(u8) || current || archived…`,
    /// each state as `length(u32) || SessionState.serialized()`. For the key store to seal.
    public func serialized() -> SecretBytes {
        let states = allStates.map { $0.serialized() }
        return SecretWireWriter.build(count: 2 + states.reduce(0) { $0 + 4 + $1.count }) { encoder in
            encoder.write(Self.storageVersion)
            encoder.write(UInt8(archived.count))
            for state in states {
                encoder.write(UInt32(state.count))
                encoder.write(state)
            }
        }
    }

    /// Restores ``serialized()`` output.
    /// - Throws: at ``WireLocation/sessionRecord``: ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/trailingBytes(_:count:)``,
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` (archived count); each state's errors
    ///   as ``SessionState/init(serialized:)``.
    public init(serialized: some ByteView) throws {
        self = try SecretWireReader.decode(serialized, location: .sessionRecord) { reader in
            try reader.requireVersion(Self.storageVersion)
            let archivedCount = Int(try reader.readUInt8())
            guard archivedCount <= ProtocolLimits.maxArchivedSessions else {
                throw ProtocolError.limitExceeded(.sessionRecord, limit: ProtocolLimits.maxArchivedSessions, actual: archivedCount)
            }
            var states: [SessionState] = []
            for _ in 0...archivedCount {
                let length = Int(try reader.readUInt32())
                let state = try reader.readSecret(length)
                states.append(try SessionState(serialized: state))
            }
            return SessionRecord(current: states[0], archived: Array(states.dropFirst()))
        }
    }
}
