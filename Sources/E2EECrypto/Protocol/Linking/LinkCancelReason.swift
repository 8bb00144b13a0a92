/// Why a link step or transfer was cancelled: the `reason` byte of a `cancel` link message
/// (docs/spec/protocol.md §10.22). Any other byte is refused.
public enum LinkCancelReason: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: the code typed on one side did not match.
    case codeMismatch = 1
    /// 2: the user refused.
    case refusedByUser = 2
    /// 3: a link message arrived out of order.
    case outOfOrder = 3
    /// 4: the step ran out of time.
    case expired = 4
    /// 5: another request or accept took this one's place.
    case superseded = 5
    /// 6: the transfer was cancelled.
    case transferCancelled = 6

    /// Reads a received reason byte.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/linkPlaintext`` for a
    ///   byte outside 1…6.
    init(wire byte: UInt8) throws {
        guard let reason = LinkCancelReason(rawValue: byte) else {
            throw ProtocolError.malformed(.linkPlaintext, reason: "cancel reason \(byte)")
        }
        self = reason
    }
}
