import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation

/// A temporary directory removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-keystore-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var storeURL: URL { url.appendingPathComponent("store.sqlite") }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Values tests build records from.
enum Fixtures {
    static func secret(_ text: String) -> SecretBytes { SecretBytes(copying: Array(text.utf8)) }
    static func text(_ secret: SecretBytes?) -> String? { secret.map { String(decoding: $0.unprotectedCopy(), as: UTF8.self) } }
    static func bytes(_ count: Int, _ value: UInt8) -> [UInt8] { [UInt8](repeating: value, count: count) }
    static func hash(_ text: String) -> [UInt8] { SHA256.hash(Array(text.utf8)) }
    static func time(_ seconds: Int64) -> StoreTime { StoreTime(microseconds: seconds * 1_000_000) }

    /// Cheap Argon2id parameters for tests (the default profile is deliberately slow).
    static let fastKDF = Argon2id.Parameters(iterations: 1, memoryKiB: 8)

    static func message(_ id: String, channel: String = "channel-1", at micros: Int64, state: TimelineState = .decrypted,
                        plaintext: String? = nil) -> TimelineMessage {
        TimelineMessage(messageID: id, channelID: channel, senderUserID: "user-b", senderDeviceID: "device-b",
                        createdAt: StoreTime(microseconds: micros), contentHash: hash(id), state: state,
                        plaintext: plaintext.map(secret))
    }
}
