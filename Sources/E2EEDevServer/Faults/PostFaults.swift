/// What a post (`POST /channels/{id}/messages`) meets under the post faults.
enum PostInterception: Sendable, Equatable {
    /// Answered 201, never stored nor published (``FaultInjector/dropPosts(contentType:count:)``).
    case dropped
    /// Answered 201 and kept until ``FaultInjector/releasePosts()``
    /// (``FaultInjector/holdPosts(contentType:fromDevice:)``).
    case held
}

/// The state behind the dropped and held post faults: drops left per content type, the hold
/// rules, and the posts held so far (in the order they came).
struct PostFaults: Sendable {
    /// One ``FaultInjector/holdPosts(contentType:fromDevice:)`` rule; `nil` matches anything.
    struct Hold: Sendable, Equatable {
        let contentType: String?
        let deviceID: String?

        func matches(contentType: String, deviceID: String) -> Bool {
            (self.contentType == nil || self.contentType == contentType) && (self.deviceID == nil || self.deviceID == deviceID)
        }
    }

    private var drops: [String: Int] = [:]
    private var duplicates: [String: Int] = [:]
    private var holds: [Hold] = []
    /// The posts held so far, oldest first.
    private(set) var held: [StoredMessage] = []

    /// Drops the next `count` posts of `contentType` (replacing what was left; 0 or less clears).
    mutating func drop(contentType: String, count: Int) {
        drops[contentType] = count > 0 ? count : nil
    }

    /// Stores the next `count` posts of `contentType` twice (replacing what was left; 0 or less
    /// clears).
    mutating func duplicate(contentType: String, count: Int) {
        duplicates[contentType] = count > 0 ? count : nil
    }

    /// Whether a post of `contentType` that went through is stored a second time (counted).
    mutating func takeDuplicate(contentType: String) -> Bool {
        guard let left = duplicates[contentType] else { return false }
        duplicates[contentType] = left > 1 ? left - 1 : nil
        return true
    }

    /// Holds the posts matching `hold` from now on.
    mutating func add(_ hold: Hold) {
        if !holds.contains(hold) { holds.append(hold) }
    }

    /// What `message`, posted with the token of `deviceID`, meets: a drop (counted) first, then
    /// a hold (the message is kept), or `nil` when it goes through.
    mutating func intercept(_ message: StoredMessage, postedBy deviceID: String) -> PostInterception? {
        if let left = drops[message.contentType] {
            drops[message.contentType] = left > 1 ? left - 1 : nil
            return .dropped
        }
        if holds.contains(where: { $0.matches(contentType: message.contentType, deviceID: deviceID) }) {
            held.append(message)
            return .held
        }
        return nil
    }

    /// Ends every hold and hands back the held posts, oldest first.
    mutating func release() -> [StoredMessage] {
        holds = []
        defer { held = [] }
        return held
    }
}
