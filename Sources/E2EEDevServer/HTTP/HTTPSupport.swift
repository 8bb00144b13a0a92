import Foundation
import Hummingbird

extension Response {
    /// A JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: value.text))
        )
    }

    /// An empty 204.
    static var noContent: Response { Response(status: .noContent) }
}

extension Request {
    /// The body parsed as a JSON object.
    /// - Throws: ``APIError`` 422 when the body is not a JSON object.
    func jsonObject(context: DevRequestContext) async throws -> JSONValue {
        let buffer = try await body.collect(upTo: 1 << 20)
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(buffer.readableBytesView))
        } catch {
            throw APIError.validation(["body"], "JSON decode error", type: "json_invalid")
        }
        guard case .object = value else {
            throw APIError.validation(["body"], "Input should be a valid dictionary", type: "model_attributes_type")
        }
        return value
    }

    /// The query parameters, decoded as a form (`+` is a space, `%XX` escapes), first value wins.
    var formQuery: [String: String] {
        var result: [String: String] = [:]
        for pair in (uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawKey = parts.first else { continue }
            let key = Self.formDecode(rawKey)
            let value = parts.count > 1 ? Self.formDecode(parts[1]) : ""
            if result[key] == nil { result[key] = value }
        }
        return result
    }

    private static func formDecode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

extension DevRequestContext {
    /// The path parameter `name`.
    /// - Throws: ``APIError`` 404 when missing.
    func pathParameter(_ name: String) throws -> String {
        guard let value = parameters.get(name) else { throw APIError.notFound }
        return value
    }

    /// The path parameter `name` as a lowercase UUID.
    /// - Throws: ``APIError`` 422 when it is not a UUID.
    func uuidParameter(_ name: String) throws -> String {
        let raw = try pathParameter(name)
        guard let uuid = UUID(uuidString: raw) else {
            throw APIError.validation(["path", name], "Input should be a valid UUID", type: "uuid_parsing")
        }
        return uuid.uuidString.lowercased()
    }
}

/// Field checks for request bodies, answering 422 the way FastAPI does.
struct BodyReader {
    let body: JSONValue
    /// Where `body` sits in the request, for the 422's `loc` (a nested object adds its key).
    var location: [String] = ["body"]

    /// A required string field.
    /// - Throws: ``APIError`` 422 when missing or not a string.
    func string(_ key: String) throws -> String {
        guard let value = body[key], !value.isNull else {
            throw APIError.validation(location + [key], "Field required", type: "missing")
        }
        guard let text = value.stringValue else {
            throw APIError.validation(location + [key], "Input should be a valid string", type: "string_type")
        }
        return text
    }

    /// An optional string field (`nil` when missing or `null`).
    /// - Throws: ``APIError`` 422 when present but not a string.
    func optionalString(_ key: String) throws -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let text = value.stringValue else {
            throw APIError.validation(location + [key], "Input should be a valid string", type: "string_type")
        }
        return text
    }

    /// An optional UUID field, lowercased.
    /// - Throws: ``APIError`` 422 when present but not a UUID string.
    func optionalUUID(_ key: String) throws -> String? {
        guard let text = try optionalString(key) else { return nil }
        guard let uuid = UUID(uuidString: text) else {
            throw APIError.validation(location + [key], "Input should be a valid UUID", type: "uuid_parsing")
        }
        return uuid.uuidString.lowercased()
    }

    /// A required UUID field, lowercased.
    /// - Throws: ``APIError`` 422 when missing or not a UUID string.
    func uuid(_ key: String) throws -> String {
        guard let value = try optionalUUID(key) else {
            throw APIError.validation(location + [key], "Field required", type: "missing")
        }
        return value
    }

    /// An optional Boolean field.
    /// - Throws: ``APIError`` 422 when present but not a Boolean.
    func optionalBool(_ key: String) throws -> Bool? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else {
            throw APIError.validation(location + [key], "Input should be a valid boolean", type: "bool_type")
        }
        return flag
    }

    /// An optional integer field.
    /// - Throws: ``APIError`` 422 when present but not an integer.
    func optionalInt(_ key: String) throws -> Int? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let number = value.intValue else {
            throw APIError.validation(location + [key], "Input should be a valid integer", type: "int_type")
        }
        return number
    }

    /// A required list of strings.
    /// - Throws: ``APIError`` 422 when missing or not a list of strings.
    func strings(_ key: String, required: Bool = true) throws -> [String] {
        guard let value = body[key], !value.isNull else {
            if required { throw APIError.validation(location + [key], "Field required", type: "missing") }
            return []
        }
        guard let items = value.arrayValue else {
            throw APIError.validation(location + [key], "Input should be a valid list", type: "list_type")
        }
        return try items.enumerated().map { index, item in
            guard let text = item.stringValue else {
                throw APIError.validation(location + [key, String(index)], "Input should be a valid string", type: "string_type")
            }
            return text
        }
    }
}
