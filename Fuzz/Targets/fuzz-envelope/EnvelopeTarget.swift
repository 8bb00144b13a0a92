import E2EECrypto
import FuzzSupport

/// DM, group and SKD envelopes through `Envelope.decode`, the decoder every received `content`
/// goes through. Property: the format is strict and canonical, so an accepted input encodes
/// back to exactly the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let envelope = try? Envelope.decode(bytes) else { return 0 }
    PropertyCheck.require(envelope.encoded() == bytes, "a decoded \(envelope.kind) envelope re-encodes to other bytes")
    _ = Envelope.hash(of: bytes)
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_envelope_main")
public func fuzzEnvelopeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzEnvelope)
}
