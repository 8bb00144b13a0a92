import Foundation

/// What a socket's writer is asked to send.
enum SocketItem: Sendable {
    /// A server event (subject to the event faults).
    case event(String)
    /// A direct reply to the client's frame.
    case reply(String)
    /// A protocol ping.
    case ping
    /// Send the event held back by the reorder fault, if it is still generation `Int`.
    case flushHeld(Int)
    /// A text frame chosen by a test, sent as is (no event faults).
    case raw(String)
    /// Close the socket with this close frame.
    case close(code: Int, reason: String?)
    /// Drop the connection at once, without a close handshake.
    case drop
}

/// The open sockets and the per-user subscriptions. Subscriptions belong to the user, not the
/// socket (docs/spec/server-api.md 4): they have no membership check, survive `leave`, and end only when the
/// user's last socket closes.
actor EventHub {
    private struct Socket {
        let userID: String
        /// The device whose ticket opened the socket (`nil` for a ticket from before the
        /// server recorded it).
        let deviceID: String?
        let sink: AsyncStream<SocketItem>.Continuation
    }

    private var sockets: [UUID: Socket] = [:]
    private var subscriptions: [String: Set<String>] = [:]
    private let autoSubscribeLaterChannels: Bool
    /// Set by ``closeAll()``: the server is shutting down and accepts no new sockets.
    private var isClosed = false
    /// The "pub/sub dies" fault (docs/spec/server-api.md §12): events reach no socket until a new
    /// socket registers, which heals it, as the reference server resubscribes to Redis then.
    private(set) var pubSubDead = false

    init(autoSubscribeLaterChannels: Bool) {
        self.autoSubscribeLaterChannels = autoSubscribeLaterChannels
    }

    func register(_ id: UUID, userID: String, deviceID: String?, sink: AsyncStream<SocketItem>.Continuation) {
        // A handshake that completes while the server shuts down gets a writer that has ended.
        guard !isClosed else {
            sink.finish()
            return
        }
        sockets[id] = Socket(userID: userID, deviceID: deviceID, sink: sink)
        pubSubDead = false
    }

    /// Kills the event fan-out until the next socket registers (open sockets stay open and
    /// keep their pings; they just receive no events).
    func killPubSub() { pubSubDead = true }

    func unregister(_ id: UUID) {
        guard let socket = sockets.removeValue(forKey: id) else { return }
        socket.sink.finish()
        if !sockets.values.contains(where: { $0.userID == socket.userID }) {
            subscriptions[socket.userID] = nil
        }
    }

    /// Ends every socket's writer, which closes the sockets (used at shutdown).
    func closeAll() {
        isClosed = true
        for socket in sockets.values { socket.sink.finish() }
    }

    /// Adds `channelIDs` to `userID`'s subscriptions.
    func subscribe(userID: String, channelIDs: some Sequence<String>) {
        subscriptions[userID, default: []].formUnion(channelIDs)
    }

    /// The channels `userID` is subscribed to.
    func subscriptions(of userID: String) -> Set<String> { subscriptions[userID] ?? [] }

    /// The number of open sockets of `userID`.
    func socketCount(of userID: String) -> Int { sockets.values.filter { $0.userID == userID }.count }

    /// Called when `userID` becomes a member of `channelID`: subscribes a connected user unless
    /// the reference quirk (no auto-subscribe after connect) is on.
    func memberAdded(userID: String, channelID: String) {
        guard autoSubscribeLaterChannels, sockets.values.contains(where: { $0.userID == userID }) else { return }
        subscriptions[userID, default: []].insert(channelID)
    }

    /// Sends `event` to every socket whose user is subscribed to `channelID` — only to the
    /// sockets of device `onlyDevice` when one is given (a row shown to one device).
    func publish(toChannel channelID: String, _ event: JSONValue, onlyDevice: String? = nil) {
        guard !pubSubDead else { return }
        let text = event.text
        for socket in sockets.values where subscriptions[socket.userID]?.contains(channelID) == true {
            if let onlyDevice, socket.deviceID != onlyDevice { continue }
            socket.sink.yield(.event(text))
        }
    }

    /// Hands `item` to every socket of `userID`.
    func send(_ item: SocketItem, toUser userID: String) {
        for socket in sockets.values where socket.userID == userID {
            socket.sink.yield(item)
        }
    }

    /// Hands `item` to every open socket.
    func sendToAll(_ item: SocketItem) {
        for socket in sockets.values { socket.sink.yield(item) }
    }

    /// Sends `event` to every socket of `userID`.
    func publish(toUser userID: String, _ event: JSONValue) {
        guard !pubSubDead else { return }
        let text = event.text
        for socket in sockets.values where socket.userID == userID {
            socket.sink.yield(.event(text))
        }
    }
}
