import Foundation
import GRDB
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// Thrown inside a session to drop the connection abruptly.
struct SocketDropped: Error {}

/// One accepted WebSocket: a writer (applying the event faults), a reader (subscribe, typing)
/// and a pinger, until either side ends it.
struct SocketSession: Sendable {
    let state: ServerState
    let socket: PendingSocket
    let outbound: WebSocketOutboundWriter
    let channel: any Channel

    private var userID: String { socket.userID }

    /// Runs the socket registered at the handshake until it ends, then unregisters it.
    func run(inbound: WebSocketInboundStream) async {
        let (stream, sink, id) = (socket.stream, socket.sink, socket.id)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await writeLoop(stream, sink: sink) }
                group.addTask { try await readLoop(inbound, sink: sink) }
                group.addTask { await backgroundLoop(sink: sink) }
                _ = try await group.next()
                group.cancelAll()
            }
        } catch {
            // A drop: close the TCP connection without a close handshake.
            try? await channel.close()
        }
        await state.hub.unregister(id)
    }

    /// Subscribes after the connect gap (when that quirk is on), then pings until cancelled.
    private func backgroundLoop(sink: AsyncStream<SocketItem>.Continuation) async {
        if state.quirks.lateSubscribeAfterConnect {
            try? await state.quirks.subscribeGap.sleep()
            if let channels = try? await state.channelIDs(ofUser: userID) {
                await state.hub.subscribe(userID: userID, channelIDs: channels)
            }
        }
        while !Task.isCancelled {
            do { try await state.configuration.pingInterval.sleep() } catch { return }
            sink.yield(.ping)
        }
    }

    private func readLoop(_ inbound: WebSocketInboundStream, sink: AsyncStream<SocketItem>.Continuation) async throws {
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        while true {
            // Not reading leaves the client's pings unanswered (the library answers them while
            // it reads): the ignore-client-frames fault.
            while await state.faults.ignoreClientFrames {
                do { try await Duration.milliseconds(20).sleep() } catch { return }
            }
            guard let message = try await messages.next() else { return }
            guard case .text(let text) = message else { continue }
            guard let value = try? JSONValue.parse(Data(text.utf8)) else {
                sink.yield(.reply(ServerEvent.invalidJSON.text))
                continue
            }
            // The reference server drops the connection on non-object JSON or a malformed UUID.
            guard case .object = value else { throw SocketDropped() }
            let type = value["type"]?.stringValue
            switch type {
            case "subscribe", "typing.start", "typing.stop":
                guard let raw = value["channel_id"]?.stringValue, let uuid = UUID(uuidString: raw) else { throw SocketDropped() }
                let channelID = uuid.uuidString.lowercased()
                if type == "subscribe" {
                    await state.hub.subscribe(userID: userID, channelIDs: [channelID])
                } else if let type {
                    await state.hub.publish(toChannel: channelID, ServerEvent.typing(type, userID: userID, channelID: channelID))
                }
            default:
                continue // presence.update and unknown types are accepted and ignored
            }
        }
    }

    private func writeLoop(_ stream: AsyncStream<SocketItem>, sink: AsyncStream<SocketItem>.Continuation) async throws {
        var writer = SocketWriter(outbound: outbound, faults: state.faults)
        for await item in stream {
            if await state.faults.silent { continue }
            switch item {
            case .ping:
                try await writer.send(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "ping"))))
            case .reply(let text):
                try await writer.send(.text(text))
            case .flushHeld(let generation):
                try await writer.flushHeld(generation: generation)
            case .raw(let text):
                try await writer.send(.text(text))
            case .close(let code, let reason):
                // The close frame ends the session; the library then waits for the client's.
                try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
                return
            case .drop:
                throw SocketDropped()
            case .event(let text):
                if let delay = await state.faults.eventDelay { try await delay.sleep() }
                if let generation = try await writer.event(text) {
                    let hold = state.faults.reorderHold
                    Task {
                        try? await hold.sleep()
                        sink.yield(.flushHeld(generation))
                    }
                }
            }
        }
        // Not cancelled, the writer ended because the hub closed it (server shutdown): close the
        // connection so the reader, which waits on the client, ends too. (Cancelled, the reader
        // ended first and the library finishes the close handshake.)
        if !Task.isCancelled { try? await channel.close() }
    }
}

/// The sending half of a socket, counting frames for the drop fault and holding one event back
/// for the reorder fault.
struct SocketWriter {
    let outbound: WebSocketOutboundWriter
    let faults: FaultInjector
    private var framesSent = 0
    private var held: (text: String, generation: Int)?
    private var generation = 0

    init(outbound: WebSocketOutboundWriter, faults: FaultInjector) {
        self.outbound = outbound
        self.faults = faults
    }

    /// Sends one frame.
    /// - Throws: ``SocketDropped`` once the drop fault's frame count is reached.
    mutating func send(_ frame: WebSocketOutboundWriter.OutboundFrame) async throws {
        try await outbound.write(frame)
        framesSent += 1
        if let limit = await faults.dropSocketsAfterFrames, framesSent >= limit { throw SocketDropped() }
    }

    /// Sends an event (twice when the duplicate fault draws it). When the reorder fault draws
    /// it, the event is held back until the next one has gone: its generation is returned so the
    /// caller can flush it later.
    mutating func event(_ text: String) async throws -> Int? {
        if held == nil, await faults.drawReorder() {
            generation += 1
            held = (text, generation)
            return generation
        }
        try await sendEvent(text)
        if let pending = held {
            held = nil
            try await sendEvent(pending.text)
        }
        return nil
    }

    /// Sends the held event if it is still `generation`.
    mutating func flushHeld(generation: Int) async throws {
        guard let pending = held, pending.generation == generation else { return }
        held = nil
        try await sendEvent(pending.text)
    }

    private mutating func sendEvent(_ text: String) async throws {
        try await send(.text(text))
        if await faults.drawDuplicate() { try await send(.text(text)) }
    }
}
