#if DEBUG
import ArgumentParser
import E2EECrypto
import E2EEMessaging

/// `e2ee-tool debug …`: test hooks of protocol text 1.3. Only debug builds have this command; a
/// release build of the tool does not know it.
struct DebugCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Test hooks (debug builds only).",
        subcommands: [PublishCertificate.self, LinkSend.self]
    )

    /// `debug publish-cert <hex>`.
    struct PublishCertificate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish-cert",
            abstract: "Republish this device's signed prekey record carrying a 104-byte certificate, across rotations until replaced.",
            discussion: """
                The certificate is 208 hex digits (Scripts/interop/mint_certificate.py prints one); 208 zeros \
                publish no certificate again. The record is signed by this device's own key; no secret leaves it.
                """)

        @OptionGroup var options: GlobalOptions

        @Argument(help: ArgumentHelp("The certificate, 208 hex digits.", valueName: "hex"))
        var certificate: String

        func validate() throws {
            guard Self.bytes(certificate) != nil else { throw ValidationError("the certificate must be 208 hex digits (104 bytes)") }
        }

        func run() async throws {
            guard let bytes = Self.bytes(certificate) else { throw ValidationError("the certificate must be 208 hex digits (104 bytes)") }
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            try await opened.using { try await $0.debugPublishCertificate(bytes) }
            let result = PublishCertificateResult(certificate: certificate.lowercased())
            try context.console.result(result) { "published: this device's record now carries the certificate" }
        }

        /// The 104 bytes of `hex`, or `nil`.
        static func bytes(_ hex: String) -> [UInt8]? {
            guard let bytes = HexText.bytes(hex), bytes.count == DeviceCertificate.length else { return nil }
            return bytes
        }
    }
}

extension DebugCommand {
    /// `debug link-send <device-id> <hex> [--channel <id>]`.
    struct LinkSend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "link-send",
            abstract: "Send a link plaintext (hex) to another device of this account over their pairwise ratchet.",
            discussion: """
                The plaintext is any well-formed link message (docs/spec/protocol.md §10.22) — a grant or recert \
                an honest device would never send, a replayed certificate — sealed as a link envelope and posted \
                in the devices channel, or in --channel.
                """)

        @OptionGroup var options: GlobalOptions

        @Argument(help: ArgumentHelp("The receiving device of this account.", valueName: "device-id"))
        var deviceID: String

        @Argument(help: ArgumentHelp("The link plaintext, in hex.", valueName: "hex"))
        var plaintext: String

        @Option(help: ArgumentHelp("The link channel to post in (default: the devices channel).", valueName: "id"))
        var channel: String?

        func validate() throws {
            guard HexText.bytes(plaintext) != nil else { throw ValidationError("the plaintext must be an even number of hex digits") }
        }

        func run() async throws {
            guard let bytes = HexText.bytes(plaintext) else { throw ValidationError("the plaintext must be an even number of hex digits") }
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            try await opened.using { account in
                try await account.debugSendLinkPlaintext(bytes, to: DeviceID(deviceID.lowercased()), in: channel.map { ChannelID($0.lowercased()) })
            }
            let result = LinkSendResult(device: deviceID.lowercased(), channel: channel?.lowercased())
            try context.console.result(result) { "sent: a link message to \(result.device) in \(result.channel ?? "the devices channel")" }
        }
    }
}

/// `debug link-send` as JSON.
struct LinkSendResult: Encodable {
    let device: String
    /// The channel named, or `nil`: the devices channel.
    let channel: String?
}

/// Hex text as bytes.
enum HexText {
    /// The bytes of `hex` (an even number of hex digits, either case), or `nil`.
    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// `debug publish-cert` as JSON.
struct PublishCertificateResult: Encodable {
    let certificate: String
}
#endif
