import E2EECrypto
import FuzzSupport

/// Protocol text 1.3's link messages (docs/spec/protocol.md §10.22, §10.23). The first byte
/// picks the variant:
/// - 0: a decrypted link plaintext (`LinkPlaintext.decode`, and `LinkEnvelope.open` on it).
///   Property: an accepted plaintext is its kind's exact length (a chunk within its bounds),
///   encodes back to the same bytes, and `open` agrees with `decode`;
/// - 1: a link envelope (`LinkEnvelope.decode`). Property: an accepted envelope encodes back to
///   the same bytes, its message is within 69…70,000 bytes, and only its recipient gets it;
/// - 2: two 32-byte nonces and a typed code. Property: both codes are six ASCII digits, each
///   matches itself, and the typed text matches a code only when it is that code.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinkPlaintext(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput.selector(FuzzInput.bytes(data, size)) else { return 0 }
    switch selector % 3 {
    case 0: checkPlaintext(rest)
    case 1: checkEnvelope(rest)
    default: checkCodes(rest)
    }
    return 0
}

private struct Fixture: Sendable {
    let user: WireUUID, primary: WireUUID, newDevice: WireUUID
    let primaryIdentity = IdentityKeyPair(using: DeterministicRandom(seed: Array("fuzz-link/primary".utf8))).publicIdentity
    let newIdentity = IdentityKeyPair(using: DeterministicRandom(seed: Array("fuzz-link/new".utf8))).publicIdentity

    init() {
        guard let user = try? WireUUID(bytes: [UInt8](repeating: 0x11, count: 16)),
              let primary = try? WireUUID(bytes: [UInt8](repeating: 0x22, count: 16)),
              let newDevice = try? WireUUID(bytes: [UInt8](repeating: 0x33, count: 16)) else { fatalError("fixed, valid inputs") }
        (self.user, self.primary, self.newDevice) = (user, primary, newDevice)
    }
}

private let fixture = Fixture()

private func checkPlaintext(_ bytes: [UInt8]) {
    let secret = SecretBytes(copying: bytes)
    let decoded = try? LinkPlaintext.decode(secret)
    if let envelope = try? LinkEnvelope(senderDevice: fixture.primary, recipientDevice: fixture.newDevice,
                                        pairwiseMessage: [UInt8](repeating: 1, count: ProtocolLimits.minPairwiseMessageBytes)) {
        PropertyCheck.require((try? envelope.open(pairwisePlaintext: secret)) == decoded, "open and decode disagree")
    }
    guard let decoded else { return }
    PropertyCheck.require((try? decoded.encoded().unprotectedCopy()) == bytes, "a link plaintext re-encodes to other bytes")
    if decoded.kind == .chunk {
        PropertyCheck.require(bytes.count >= 22 && bytes.count <= ProtocolLimits.maxLinkChunkPlaintextBytes, "a chunk outside its bounds")
    } else {
        PropertyCheck.require(bytes.count == decoded.kind.plaintextLength, "a plaintext not of its kind's length")
    }
}

private func checkEnvelope(_ bytes: [UInt8]) {
    guard let envelope = try? LinkEnvelope.decode(bytes) else { return }
    PropertyCheck.require(envelope.encoded() == bytes, "a link envelope re-encodes to other bytes")
    PropertyCheck.require((ProtocolLimits.minPairwiseMessageBytes...ProtocolLimits.maxLinkPairwiseMessageBytes).contains(envelope.pairwiseMessage.count),
                          "a pairwise message outside its bounds")
    PropertyCheck.require(envelope.senderDevice != envelope.recipientDevice, "an envelope addressed to its sender")
    PropertyCheck.require((try? envelope.pairwiseMessage(for: envelope.senderDevice)) == nil, "the sender is given the message")
}

private func checkCodes(_ bytes: [UInt8]) {
    guard bytes.count >= 64 else { return }
    let codes = try? LinkCodes.derive(newDeviceNonce: SecretBytes(copying: bytes[0..<32]), primaryNonce: SecretBytes(copying: bytes[32..<64]),
                                      userID: fixture.user, primaryDevice: fixture.primary, primaryIdentity: fixture.primaryIdentity,
                                      newDevice: fixture.newDevice, newIdentity: fixture.newIdentity)
    guard let codes else { return PropertyCheck.require(false, "codes of two 32-byte nonces are refused") }
    for code in [codes.newDeviceCode, codes.primaryCode] {
        PropertyCheck.require(code.utf8.count == 6 && code.utf8.allSatisfy { (48...57).contains($0) }, "a code is not six digits")
        PropertyCheck.require(LinkCodes.matches(typed: code, expected: code), "a code does not match itself")
    }
    let typed = String(decoding: bytes[64...], as: UTF8.self)
    PropertyCheck.require(LinkCodes.matches(typed: typed, expected: codes.newDeviceCode) == (typed == codes.newDeviceCode), "a typed code matches wrongly")
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_link_plaintext_main")
public func fuzzLinkPlaintextMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzLinkPlaintext)
}
