/// An id of one kind of thing — a user, a device, a channel, a message, an outbox entry — so that
/// passing a channel id where a message id belongs does not compile.
///
/// The server makes these ids (UUIDs) and compares them without regard to case; an
/// `Identifier` holds the lower-cased form, made once where the id enters — when server JSON is
/// decoded, or when an app or the tool builds one from its own input — so that two ids of the same
/// thing compare equal and hash alike everywhere after that. Strings appear only at the edges: the
/// JSON a transport exchanges (`Codable`), the key store's SQL (`rawValue`), and what a person reads
/// (`description`).
///
/// Why a small generic type and not pointfreeco's swift-tagged: an id here must be *normalised*
/// when it is made, which a tag around `String` does not do, and the type is twenty lines that need
/// no dependency.
public struct Identifier<Kind: IdentifierKind>: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The id as the server and the store spell it (lower-cased).
    public let rawValue: String

    /// An id from a string, lower-cased.
    public init(_ string: String) {
        rawValue = Self.normalized(string)
    }

    /// An id whose spelling is already normalised: read back from this device's own store, where
    /// only normalised ids are written. Skips the case scan on hot paths.
    package init(stored: String) {
        rawValue = stored
    }

    /// The id itself.
    public var description: String { rawValue }

    /// Orders ids by their spelling (the server's tie-break for equal times).
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `string` lower-cased; the same string when it has no upper-case ASCII letter, which is the
    /// case for every id the reference server makes.
    private static func normalized(_ string: String) -> String {
        // Scanned over the contiguous bytes (a native string's own; a bridged one is copied):
        // every id of every decoded message passes here.
        var bytes = string
        let needsLowerCasing = bytes.withUTF8 { utf8 in
            utf8.contains { byte in (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte >= 0x80 }
        }
        return needsLowerCasing ? string.lowercased() : string
    }
}

extension Identifier: Codable {
    /// Decodes a JSON string and normalises it.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the normalised string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension Identifier: ExpressibleByStringLiteral {
    /// An id written in source (tests, examples), normalised like any other.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

/// What an `Identifier` identifies. The kinds are the cases of ``IdentifierKinds``.
public protocol IdentifierKind: Sendable {}

/// The kinds of ids this package names.
public enum IdentifierKinds {
    /// A user of the server.
    public enum User: IdentifierKind {}
    /// One device of a user.
    public enum Device: IdentifierKind {}
    /// A channel: a group or a direct message.
    public enum Channel: IdentifierKind {}
    /// A message the server stored.
    public enum Message: IdentifierKind {}
    /// An outbox entry: this device's local id for a message until, and after, the server has it.
    public enum OutboxEntry: IdentifierKind {}
}

/// A user's id.
public typealias UserID = Identifier<IdentifierKinds.User>
/// A device's id.
public typealias DeviceID = Identifier<IdentifierKinds.Device>
/// A channel's id.
public typealias ChannelID = Identifier<IdentifierKinds.Channel>
/// A server message's id.
public typealias MessageID = Identifier<IdentifierKinds.Message>
/// An outbox entry's local id.
public typealias OutboxEntryID = Identifier<IdentifierKinds.OutboxEntry>
