import E2EECrypto
import Foundation
import FuzzSupport

/// Strict base64 (canonical padding, no whitespace, a length limit). Properties: what it
/// accepts, Foundation accepts with the same bytes; and the accepted text is the canonical
/// encoding of those bytes (no second spelling of the same value).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase64(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput.bytes(data, size), as: UTF8.self)
    guard let decoded = try? Base64.decode(text, maxEncodedLength: 4096) else { return 0 }
    PropertyCheck.require(Base64.encode(decoded) == text, "accepted base64 is not canonical")
    PropertyCheck.require(Data(base64Encoded: text).map([UInt8].init) == decoded, "Foundation reads other bytes")
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_base64_main")
public func fuzzBase64Main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzBase64)
}
