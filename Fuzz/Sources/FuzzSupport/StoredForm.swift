import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The secret forms the key store keeps sealed, in the order of the `fuzz-stored-forms`
/// target's selector byte.
public enum StoredForm: UInt8, CaseIterable, Sendable {
    /// `SessionState(serialized:)`.
    case sessionState
    /// `SessionRecord(serialized:)`.
    case sessionRecord
    /// `SenderKeyReceivingState(serialized:)`.
    case receivingSenderKey
    /// `SenderKeySendingState(serialized:)`.
    case sendingSenderKey
    /// `SignedPrekey(serialized:)`.
    case signedPrekey
    /// `OneTimePrekey(serialized:)`.
    case oneTimePrekey
    /// `IdentityKeyPair(serialized:)`.
    case identityKeyPair
    /// A sealed value (`Sealer.open`).
    case sealed
}

extension ReceivingScenario {
    /// Real serialised state of every form, from this scenario's devices: seeds for
    /// `fuzz-stored-forms`, each prefixed with its form's selector byte.
    public func storedFormSeeds() -> [[UInt8]] {
        var seeds: [(StoredForm, SecretBytes)] = []
        for record in device.sessions.values {
            seeds.append((.sessionRecord, record.serialized()))
            seeds.append((.sessionState, record.current.serialized()))
        }
        for state in device.senderKeys.values { seeds.append((.receivingSenderKey, state.serialized())) }
        seeds.append((.sendingSenderKey, sending.serialized()))
        for key in device.signedPrekeys { seeds.append((.signedPrekey, key.serialized())) }
        for key in device.oneTimePrekeys { seeds.append((.oneTimePrekey, key.serialized())) }
        seeds.append((.identityKeyPair, device.identity.serialized()))
        var out = seeds.map { [$0.0.rawValue] + $0.1.unprotectedCopy() }
        if let state = device.sessions.values.first?.serialized(),
           let sealed = try? FuzzFixtures.sealer.seal(state, table: "sessions", column: "state", rowID: "fuzz") {
            out.append([StoredForm.sealed.rawValue] + Array(sealed))
        }
        return out
    }
}
