import E2EECrypto
@_spi(Benchmarks) @testable import E2EEMessaging
@testable import E2EETransport
import FuzzSupport

/// The server's JSON answers as the transport decodes them (`HTTPChatServer.decode`, internal:
/// `@testable import`), one model per first byte: message pages (and, differentially, the page
/// scanner: what it reads, JSONDecoder must read the same), channels, members, bundles,
/// sender keys, users, devices, tokens, tickets. A decoded message then goes where a received
/// message goes next: `IncomingMessage(posted:channel:)` (which sniffs the envelope) and
/// `ReceivedContent` (which classifies the content against the channel).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, body) = FuzzInput.selector(FuzzInput.bytes(data, size)) else { return 0 }
    switch selector % 12 {
    case 0:
        // The page scanner reads a page only as JSONDecoder reads it, and leaves the rest to it.
        let page = try? HTTPChatServer.decode(MessagePage.self, body)
        if let scanned = MessagePageScanner.scan(body) {
            PropertyCheck.require(scanned == page, "the page scanner read a page JSONDecoder reads otherwise")
        }
        page?.messages.forEach(ServerJSONFollowUp.receive)
    case 1: _ = try? HTTPChatServer.decode([ServerChannel].self, body)
    case 2: _ = try? HTTPChatServer.decode(ServerChannel.self, body)
    case 3: _ = try? HTTPChatServer.decode([ChannelMember].self, body)
    case 4: _ = try? HTTPChatServer.decode([DeviceBundle].self, body)
    case 5: _ = try? HTTPChatServer.decode(DeviceBundle.self, body)
    case 6: _ = try? HTTPChatServer.decode([SenderKeyEntry].self, body)
    case 7: (try? HTTPChatServer.decode(ServerMessage.self, body)).map(ServerJSONFollowUp.receive)
    case 8: _ = try? HTTPChatServer.decode([ServerUser].self, body)
    case 9: _ = try? HTTPChatServer.decode([ServerDevice].self, body)
    case 10: _ = try? HTTPChatServer.decode(TokenResponse.self, body)
    default: _ = try? HTTPChatServer.decode([String: String].self, body)
    }
    return 0
}

/// What happens to a decoded message next.
enum ServerJSONFollowUp {
    static func receive(_ message: ServerMessage) {
        for encryption in ChannelEncryptionType.allCases {
            let incoming = IncomingMessage(posted: message, channel: ReceivingChannel(id: message.channelID, encryption: encryption))
            PropertyCheck.require(incoming.contentHash == SHA256.hash(Array(message.content.utf8)), "content hash of another content")
            _ = try? ReceivedContent(content: message.content, contentType: message.contentType ?? "",
                                     protocolVersion: message.protocolVersion ?? 1, channelEncryption: encryption)
        }
    }
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_server_json_main")
public func fuzzServerJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzServerJSON)
}
