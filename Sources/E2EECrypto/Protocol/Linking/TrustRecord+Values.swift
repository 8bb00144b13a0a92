extension TrustRecord {
    /// A channel's kind in a channel record.
    public enum ChannelKind: UInt8, Sendable, Hashable, CaseIterable {
        /// 1: a DM.
        case dm = 1
        /// 2: a group.
        case group = 2

        init(wire byte: UInt8) throws { self = try TrustRecord.value(byte, "channel kind") }
    }

    /// Where the user stands in a channel.
    public enum ChannelStanding: UInt8, Sendable, Hashable, CaseIterable {
        /// 1: created or opened by the user.
        case created = 1
        /// 2: a request the user accepted.
        case accepted = 2
        /// 3: a request not answered yet.
        case request = 3
        /// 4: a request the user declined.
        case declined = 4
        /// 5: a channel the user left.
        case left = 5

        init(wire byte: UInt8) throws { self = try TrustRecord.value(byte, "channel standing") }
    }

    /// The state of a hold record.
    public enum HoldState: UInt8, Sendable, Hashable, CaseIterable {
        /// 1: held, waiting for the user.
        case held = 1
        /// 2: declined by the user.
        case declined = 2

        init(wire byte: UInt8) throws { self = try TrustRecord.value(byte, "hold state") }
    }

    /// A known value of an enumerated byte.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/transferRecord``.
    static func value<T: RawRepresentable>(_ byte: UInt8, _ what: String) throws -> T where T.RawValue == UInt8 {
        guard let value = T(rawValue: byte) else { throw ProtocolError.malformed(.transferRecord, reason: "\(what) \(byte)") }
        return value
    }
}
