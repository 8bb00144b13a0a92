import Foundation
import NIOCore

/// A socket registered with the hub while its handshake is still being answered, so that an
/// event published right after the 101 is queued for it instead of lost (when the
/// late-subscribe quirk is off, the connection is fully subscribed once the 101 is out).
struct PendingSocket: Sendable {
    let id: UUID
    let userID: String
    let stream: AsyncStream<SocketItem>
    let sink: AsyncStream<SocketItem>.Continuation
}

/// Pending sockets by connection, from the handshake check to the upgraded session.
actor PendingSockets {
    private var pending: [ObjectIdentifier: PendingSocket] = [:]

    /// Registers a socket for `userID`'s device `deviceID` (the ticket's) with `hub` and keeps it
    /// for `channel`'s session. If the connection closes before the session takes it, it is
    /// unregistered.
    func open(for channel: any Channel, userID: String, deviceID: String?, hub: EventHub) async {
        let (stream, sink) = AsyncStream.makeStream(of: SocketItem.self)
        let socket = PendingSocket(id: UUID(), userID: userID, stream: stream, sink: sink)
        let key = ObjectIdentifier(channel)
        pending[key] = socket
        await hub.register(socket.id, userID: userID, deviceID: deviceID, sink: sink)
        channel.closeFuture.whenComplete { _ in
            Task {
                if await self.take(key) != nil { await hub.unregister(socket.id) }
            }
        }
    }

    /// The pending socket of `channel`, removed.
    func take(for channel: any Channel) -> PendingSocket? { take(ObjectIdentifier(channel)) }

    private func take(_ key: ObjectIdentifier) -> PendingSocket? { pending.removeValue(forKey: key) }
}
