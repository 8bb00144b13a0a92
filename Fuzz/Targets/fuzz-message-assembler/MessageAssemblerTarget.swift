import FuzzSupport
import NIOCore
import NIOWebSocket
@testable import E2EETransport
import E2EEMessaging

/// The WebSocket message assembler (internal: `@testable import`) fed a sequence of data
/// frames read from the input: per frame one header byte (low nibble: opcode; 0x80: FIN;
/// 0x40: length ×64) and one length byte, then the payload. Properties: nothing larger than the
/// limit is ever delivered, at most two outputs per frame, and every delivered text decodes
/// to an update without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessageAssembler(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    let maxBytes = 1024
    var assembler = MessageAssembler(maxBytes: maxBytes)
    let decoder = RealtimeEventDecoder()
    var index = 0
    while index + 2 <= bytes.count {
        let header = bytes[index]
        let length = Int(bytes[index + 1]) * (header & 0x40 != 0 ? 64 : 1)
        index += 2
        let available = min(length, bytes.count - index)
        var payload = ByteBuffer(bytes: bytes[index..<(index + available)])
        // A frame longer than the input is padded, so long messages stay reachable.
        payload.writeRepeatingByte(UInt8(ascii: " "), count: length - available)
        index += available
        guard let opcode = WebSocketOpcode(encodedWebSocketOpcode: header & 0x0F) else { continue }
        let outputs = assembler.take(opcode: opcode, fin: header & 0x80 != 0, data: payload)
        PropertyCheck.require(outputs.count <= 2, "one frame produced \(outputs.count) outputs")
        for output in outputs {
            if case .text(let text) = output {
                PropertyCheck.require(text.utf8.count <= maxBytes, "a message over the limit was delivered")
            }
            _ = output.update(decoder: decoder)
        }
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_message_assembler_main")
public func fuzzMessageAssemblerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzMessageAssembler)
}
