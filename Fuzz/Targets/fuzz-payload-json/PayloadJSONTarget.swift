import E2EECrypto
import FuzzSupport

/// The strict payload JSON (docs/spec/protocol.md §6) inside every decrypted message. Property: an
/// accepted payload survives a round trip through its own encoder (when the encoding fits the
/// payload limit; above it, the typed limit error).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayloadJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let payload = try? MessagePayload(json: bytes) else { return 0 }
    let encoded = payload.encodedJSON().unprotectedCopy()
    guard encoded.count <= ProtocolLimits.maxPayloadBytes else {
        // The encoder writes `\b` and `\f` as `\u0008` and `\u000c`, so a payload near the limit
        // may re-encode above it (first campaign): then only the typed limit error is allowed.
        do {
            _ = try MessagePayload(json: encoded)
            PropertyCheck.require(false, "a payload over the limit was accepted")
        } catch {
            guard case ProtocolError.limitExceeded(.payload, _, _) = error else {
                PropertyCheck.require(false, "a re-encoded payload over the limit refused with \(error)")
                return 0
            }
        }
        return 0
    }
    let again = try? MessagePayload(json: encoded)
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
