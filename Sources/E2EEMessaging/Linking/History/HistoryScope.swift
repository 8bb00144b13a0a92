import Foundation
@_spi(StoreInternals) import E2EEKeyStore

/// How much history a primary sends a newly linked device (docs/spec/protocol.md §11.7): the
/// choice the user makes when linking ("none", "last 30 days" — the default —, "everything").
/// Days count back from the primary's clock when the snapshot is taken, by the server's
/// `created_at` of each message.
public enum HistoryScope: Sendable, Hashable, CustomStringConvertible {
    /// No history: only the trust part is sent.
    case none
    /// Messages of the last `n` days (`n` ≥ 1; a smaller value reads as 1).
    case lastDays(Int)
    /// Every message the primary shows.
    case all

    /// The default: the last 30 days.
    public static let `default` = HistoryScope.lastDays(30)

    /// `none`, `30d` (any count of days) or `all`, as `e2ee-tool --history` spells them.
    public var description: String {
        switch self {
        case .none: "none"
        case .lastDays(let days): "\(max(1, days))d"
        case .all: "all"
        }
    }

    /// Reads `none`, `all` or `<n>d` (`30d`); `nil` for anything else.
    public init?(_ text: String) {
        switch text {
        case "none": self = .none
        case "all": self = .all
        default:
            guard text.hasSuffix("d"), let days = Int(text.dropLast()), days >= 1 else { return nil }
            self = .lastDays(days)
        }
    }

    /// The store's window at `now`.
    package func window(now: Date) -> HistoryWindow {
        switch self {
        case .none: return .nothing
        case .all: return .everything
        case .lastDays(let days):
            let seconds = Int64(max(1, min(days, 1_000_000))) * 86_400
            return .since(StoreTime(now).adding(seconds: -seconds))
        }
    }
}
