/// X3DH key agreement (docs/spec/protocol.md §2) and the initiator's side of it.
public enum X3DH {
    static let info = Array("e2ee-x3dh-v1".utf8)
    static let prefix = [UInt8](repeating: 0xFF, count: 32)

    /// `SK = HKDF(salt = ZERO32, ikm = 0xFF*32 || DH1 || DH2 || DH3 [|| DH4], info = "e2ee-x3dh-v1", L = 32)`.
    static func sharedKey(_ dh1: SecretBytes, _ dh2: SecretBytes, _ dh3: SecretBytes, _ dh4: SecretBytes?) throws -> SecretBytes {
        var parts: [any ByteView] = [prefix, dh1, dh2, dh3]
        if let dh4 { parts.append(dh4) }
        let ikm = SecretBytes.concatenating(parts)
        return try RatchetKDF.mapCrypto {
            try HKDF.deriveKey(inputKeyMaterial: ikm, salt: RatchetKDF.zero32, info: info, outputLength: 32)
        }
    }

    /// Alice's side: starts a session with the device of a verified `bundle`. The ephemeral key
    /// `EK` and the DH outputs live only inside this call (wiped on release). Her first sending
    /// ratchet key pair is fresh, her remote ratchet key is `SPK_B`. The returned state sends
    /// prekey messages until it has decrypted a reply.
    /// - Parameters:
    ///   - localIdentity: this device's identity key pair.
    ///   - bundle: the remote device's bundle, already checked.
    ///   - pinnedIdentity: the blob pinned for the bundle's device, if any.
    ///   - random: the source of `EK` and the first sending ratchet key pair.
    /// - Returns: the new state (install it with ``SessionRecord/installing(_:into:)``) and the
    ///   identity to pin when none was.
    /// - Throws: ``ProtocolError/identityMismatch`` when the bundle's identity differs from the
    ///   pinned one; ``ProtocolError/allZeroSharedSecret``; ``ProtocolError/crypto(_:)``.
    public static func initiate(localIdentity: IdentityKeyPair, bundle: PrekeyBundle, pinnedIdentity: IdentityBlob?,
                                using random: some RandomSource = SystemRandom()) throws -> InitiatedSession {
        if let pinnedIdentity, pinnedIdentity != bundle.identity { throw ProtocolError.identityMismatch }
        let ephemeral = X25519.PrivateKey(using: random)
        let spk = bundle.signedPrekey.publicKey
        let sharedKey = try X3DH.sharedKey(
            diffieHellman(localIdentity.dhKey, spk),
            diffieHellman(ephemeral, bundle.identity.dhKey),
            diffieHellman(ephemeral, spk),
            bundle.oneTimePrekey.map { try diffieHellman(ephemeral, $0.publicKey) }
        )
        let sendingRatchet = X25519.PrivateKey(using: random)
        let first = try RatchetKDF.root(sharedKey, diffieHellman(sendingRatchet, spk))
        let state = SessionState(
            role: .initiator, localIdentity: localIdentity.publicIdentity, remoteIdentity: bundle.identity,
            baseKey: ephemeral.publicKey, signedPrekeyID: bundle.signedPrekey.id,
            oneTimePrekeyID: bundle.oneTimePrekey?.id ?? 0, awaitingReply: true, rootKey: first.rootKey,
            sendingRatchet: sendingRatchet, remoteRatchet: spk, sendingChain: first.chainKey
        )
        return InitiatedSession(state: state, identityToPin: pinnedIdentity == nil ? bundle.identity : nil)
    }
}

/// A session Alice has just started: install ``state`` and pin ``identityToPin`` together.
public struct InitiatedSession: Sendable, CustomStringConvertible {
    /// The new session state (initiator).
    public let state: SessionState
    /// The bundle's identity, to pin when nothing was pinned for the device.
    public let identityToPin: IdentityBlob?

    /// Public facts only.
    public var description: String { "InitiatedSession(state: \(state), identityToPin: \(identityToPin.map { "\($0)" } ?? "nil"))" }
}
