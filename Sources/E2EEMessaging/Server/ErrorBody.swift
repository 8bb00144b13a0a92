import Foundation

/// One failing field of a 422 answer.
public struct ValidationIssue: Sendable, Equatable, Codable {
    /// Where the fault is, e.g. `["body", "username"]` (integers written as text).
    public var location: [String]
    /// The server's message.
    public var message: String
    /// The server's error type, e.g. `string_too_short`.
    public var type: String?

    /// An issue from its parts.
    public init(location: [String], message: String, type: String?) {
        self.location = location
        self.message = message
        self.type = type
    }
}

/// An error body as the server writes it: `{"detail": "<text>"}`, a 422 list, or plain text.
struct ErrorBody {
    static let maxText = 512
    var detail: String?
    var issues: [ValidationIssue] = []
    var text: String

    init(bytes: [UInt8]) {
        text = String(decoding: bytes.prefix(Self.maxText), as: UTF8.self)
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return }
        if let detail = object["detail"] as? String {
            self.detail = String(detail.prefix(Self.maxText))
        } else if let list = object["detail"] as? [[String: Any]] {
            issues = list.map { entry in
                let location = (entry["loc"] as? [Any] ?? []).map { "\($0)" }
                return ValidationIssue(location: location, message: entry["msg"] as? String ?? "", type: entry["type"] as? String)
            }
        }
    }
}
