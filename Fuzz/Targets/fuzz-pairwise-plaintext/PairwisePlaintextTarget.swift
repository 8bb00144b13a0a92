import E2EECrypto
import FuzzSupport

/// What a pairwise session decrypts inside an envelope: a DM key entry or a sender key
/// distribution (`PairwisePlaintext.decode`, then the SKD's own processing). Property: an
/// accepted plaintext encodes back to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPairwisePlaintext(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    let secret = SecretBytes(copying: bytes)
    _ = try? SenderKeyDistribution.decode(secret)
    guard let plaintext = try? PairwisePlaintext.decode(secret) else { return 0 }
    PropertyCheck.require(plaintext.encoded().unprotectedCopy() == bytes, "a pairwise plaintext re-encodes to other bytes")
    if case .senderKeyDistribution(let distribution) = plaintext {
        _ = try? distribution.process(postedChannel: distribution.channel, senderDevice: FuzzFixtures.zeroUUID, existing: nil, now: 0)
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_pairwise_plaintext_main")
public func fuzzPairwisePlaintextMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzPairwisePlaintext)
}
