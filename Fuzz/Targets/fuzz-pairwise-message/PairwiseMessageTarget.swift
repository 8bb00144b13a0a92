import E2EECrypto
import FuzzSupport

/// Pairwise messages, normal (`0x01`) and prekey (`0x02`), as a recipient entry carries them.
/// Property: an accepted message keeps its exact bytes, and the two inner decoders agree with
/// the dispatching one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPairwiseMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let message = try? PairwiseMessage(bytes: bytes) else { return 0 }
    PropertyCheck.require(message.bytes == bytes, "a pairwise message changed its bytes")
    switch message {
    case .normal:
        PropertyCheck.require((try? NormalMessage(bytes: bytes)) != nil, "normal message refused by NormalMessage")
    case .prekey(let prekey):
        PropertyCheck.require((try? PrekeyMessage(bytes: bytes)) != nil, "prekey message refused by PrekeyMessage")
        PropertyCheck.require(prekey.message.bytes.count < bytes.count, "inner message not inside the prekey message")
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_pairwise_message_main")
public func fuzzPairwiseMessageMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzPairwiseMessage)
}
