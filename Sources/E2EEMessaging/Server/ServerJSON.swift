import Foundation

/// How a server's JSON answer becomes a model, in one place for the HTTP client and the
/// account's entries for received bytes: `JSONDecoder`, and a failure reported as
/// ``ServerError/decoding(_:)`` naming the model and the field, never the value.
package enum ServerJSON {
    /// `bytes` decoded as `type`.
    /// - Throws: ``ServerError/decoding(_:)`` ("`type`: what failed").
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw ServerError.decoding("\(T.self): \(summary(of: error))")
        }
    }

    /// What failed, without the input: a missing key, or the path of a bad value.
    /// A message page from a `GET /channels/{id}/messages` body: read straight from the bytes
    /// (``MessagePageScanner``) when the body has the shape servers send, else decoded like any
    /// other body (``decode(_:from:)``), which accepts what JSON allows or says what is wrong.
    /// - Throws: ``ServerError/decoding(_:)``.
    package static func decodePage(_ bytes: [UInt8]) throws -> MessagePage {
        if let page = MessagePageScanner.scan(bytes) { return page }
        return try decode(MessagePage.self, from: bytes)
    }

    private static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "invalid JSON" }
        switch error {
        case .keyNotFound(let key, _): return "missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "bad value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: return "invalid"
        }
    }
}
