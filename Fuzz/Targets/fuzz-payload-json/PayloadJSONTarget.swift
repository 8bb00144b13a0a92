import E2EECrypto
import FuzzSupport

/// The strict payload JSON (PROTOCOL.md §6) inside every decrypted message. Property: an
/// accepted payload survives a round trip through its own encoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayloadJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let payload = try? MessagePayload(json: bytes) else { return 0 }
    let again = try? MessagePayload(json: payload.encodedJSON().unprotectedCopy())
    PropertyCheck.require(again?.text == payload.text && again?.id == payload.id && again?.timestamp == payload.timestamp
                              && again?.editOf == payload.editOf && again?.replyTo == payload.replyTo,
                          "an accepted payload does not survive its own encoder")
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_payload_json_main")
public func fuzzPayloadJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzPayloadJSON)
}
