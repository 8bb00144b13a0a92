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
        subcommands: [PublishCertificate.self]
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
            let digits = Array(hex.utf8)
            guard digits.count == 2 * DeviceCertificate.length else { return nil }
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
}

/// `debug publish-cert` as JSON.
struct PublishCertificateResult: Encodable {
    let certificate: String
}
#endif
