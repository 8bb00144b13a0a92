import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Foundation

/// A dev server with a receiver (one open socket) and senders, all members of one channel.
final class DeliveryFixture: @unchecked Sendable {
    let server: RunningDevServer
    let senders: [HTTPChatServer]
    let channelID: String
    let receiverID: String
    let connection: any RealtimeConnection
    /// A `message.new` frame as the server would send it, for injection.
    let preparedFrame: String

    /// Why the fixture could not be built or a sample went wrong (a bug in the benchmark).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private init(server: RunningDevServer, senders: [HTTPChatServer], channelID: String, receiverID: String,
                 connection: any RealtimeConnection, preparedFrame: String) {
        self.server = server
        self.senders = senders
        self.channelID = channelID
        self.receiverID = receiverID
        self.connection = connection
        self.preparedFrame = preparedFrame
    }

    /// Starts a server (no quirks, no rate limit) with `senderCount` senders and a receiver.
    static func start(senderCount: Int) async throws -> DeliveryFixture {
        let server = try await DevServer.start(configuration: .testing())
        func client() -> HTTPChatServer {
            HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: nil, serverURL: server.baseURL))
        }
        let receiver = client()
        let receiverTokens = try await receiver.register(username: "receiver", password: "password123", deviceName: "bench")
        let channel = try await receiver.createChannel(name: "bench")
        var senders: [HTTPChatServer] = []
        for index in 0..<senderCount {
            let sender = client()
            _ = try await sender.register(username: "sender\(index)", password: "password123", deviceName: "bench")
            try await sender.joinChannel(id: channel.id)
            senders.append(sender)
        }
        // Keepalive off: the figure is the delivery path alone.
        let options = RealtimeConnectionOptions(pingInterval: nil, idleTimeout: nil)
        let connector = WebSocketRealtimeConnector(webSocketURL: server.webSocketURL, options: options)
        let connection = try await connector.connect(ticket: try await receiver.webSocketTicket())
        // One real message, published the way the server does, as the injected frame.
        guard let first = senders.first else { throw Failure(description: "no sender") }
        let sample = try await first.sendMessage(channelID: channel.id, OutgoingMessage(content: Self.content))
        let fixture = DeliveryFixture(server: server, senders: senders, channelID: channel.id.rawValue, receiverID: receiverTokens.userID.rawValue,
                                      connection: connection, preparedFrame: try Self.frame(for: sample))
        try await fixture.receive(1)
        return fixture
    }

    /// ~200 bytes of base64, about the size of a short encrypted envelope.
    static let content = String(repeating: "QUJD", count: 50)

    /// A socket `message.new` frame for `message` (the server's own shape, `+00:00` aside).
    private static func frame(for message: ServerMessage) throws -> String {
        let encoder = JSONEncoder()
        let body = try encoder.encode(message)
        guard let inner = String(data: body, encoding: .utf8) else { throw Failure(description: "unencodable message") }
        return #"{"type":"message.new","message":"# + inner + "}"
    }

    /// Waits for `count` decoded `message.new` events.
    /// - Throws: ``Failure`` when anything else arrives or the connection ends.
    func receive(_ count: Int) async throws {
        var iterator = connection.updates.makeAsyncIterator()
        var received = 0
        while received < count {
            guard let update = await iterator.next() else { throw Failure(description: "connection ended") }
            guard case .event(.messageNew) = update else { throw Failure(description: "unexpected \(update)") }
            received += 1
        }
    }

    /// Posts `count` messages, spread over the senders, each sender one after the other.
    func post(_ count: Int) async throws {
        let perSender = count / senders.count
        let channelID = channelID
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in senders {
                group.addTask {
                    for _ in 0..<perSender {
                        _ = try await sender.sendMessage(channelID: ChannelID(channelID), OutgoingMessage(content: Self.content))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Publishes `count` prepared frames to the receiver's socket from the server side.
    func inject(_ count: Int) async {
        for _ in 0..<count {
            await server.faults.sendRawFrame(preparedFrame, toUser: receiverID)
        }
    }

    /// Closes the socket and stops the server.
    func stop() async {
        await connection.close()
        await server.shutdown()
    }
}
