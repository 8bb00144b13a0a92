import Foundation

/// Any JSON value, so vector files with fields we do not model still decode.
public enum JSONValue: Sendable {
    /// A string.
    case string(String)
    /// A number (JSON has one number type).
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])
    /// `null`.
    case null

    /// Parses a JSON document.
    ///
    /// Foundation's `JSONSerialization` reads the text once and the tree is converted without
    /// throwing: a `Decodable` conformance has to probe each value's type by decoding it as one
    /// type after another, throwing on every miss, and the thrown errors made the vector files
    /// (megabytes of JSON) slow to read wherever throwing is costly (under swift-testing every
    /// throw captures a backtrace).
    /// - Throws: Foundation's error when `data` is not JSON; ``JSONValueError`` for a value
    ///   JSON cannot hold.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONValue(foundation: JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    /// The class Foundation uses for JSON `true` and `false` (an `NSNumber` subclass).
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    private init(foundation value: Any) throws {
        switch value {
        case is NSNull:
            self = .null
        case let number as NSNumber:
            self = ObjectIdentifier(type(of: number)) == Self.booleanClass ? .bool(number.boolValue) : .number(number.doubleValue)
        case let string as String:
            self = .string(string)
        case let array as [Any]:
            self = .array(try array.map(JSONValue.init(foundation:)))
        case let object as [String: Any]:
            self = .object(try object.mapValues(JSONValue.init(foundation:)))
        default:
            throw JSONValueError(typeName: String(describing: type(of: value)))
        }
    }

    /// The member `key` of an object (`nil` for anything else).
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string, if this is one.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an exact `Int`, if it is one.
    public var int: Int? {
        if case .number(let value) = self, let exact = Int(exactly: value) { return exact }
        return nil
    }

    /// The boolean, if this is one.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

/// A value Foundation's JSON reader returned that is not a JSON type (never expected).
public struct JSONValueError: Error, Sendable, Equatable {
    /// The type that was found.
    public let typeName: String
}
