import E2EEMessaging
import FuzzSupport

/// Every WebSocket event the server sends, through `RealtimeEventDecoder` (which must never
/// throw or trap). Input is a text frame, so only valid UTF-8 is fed (the assembler refuses
/// the rest before the decoder sees it). Property: a malformed frame reports the frame's size.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRealtimeEvent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    if case .malformedFrame(_, let byteCount) = RealtimeEventDecoder().decode(text) {
        PropertyCheck.require(byteCount == bytes.count, "malformed frame reported with another size")
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_realtime_event_main")
public func fuzzRealtimeEventMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzRealtimeEvent)
}
