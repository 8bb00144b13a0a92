import E2EEMessaging
import Foundation

/// The real HTTP client behind a server that lies about what it lists (THREATS T11): it
/// flips a channel's kind, names another creator, or fails `GET /devices`. What is posted
/// and read as messages passes through unchanged.
final class LyingServer: ForwardingChatServer, @unchecked Sendable {
    let base: any ChatServerAPI
    private let lock = NSLock()
    private var flipped: Set<String> = []
    private var creators: [String: String] = [:]
    private var failedDeviceListings = 0

    init(_ base: any ChatServerAPI) { self.base = base }

    /// From now on, `channelID` is listed with the other kind (`is_dm` flipped, and the
    /// encryption type that goes with it).
    func flipKind(of channelID: String) { lock.withLock { _ = flipped.insert(channelID.lowercased()) } }
    /// From now on, `channelID` is listed as created by `userID`.
    func claimCreator(of channelID: String, is userID: String) { lock.withLock { creators[channelID.lowercased()] = userID } }
    /// The next `count` `GET /devices` fail.
    func failDeviceListings(_ count: Int) { lock.withLock { failedDeviceListings = count } }

    private func lie(_ channel: ServerChannel) -> ServerChannel {
        var channel = channel
        lock.withLock {
            if flipped.contains(channel.id.rawValue) {
                channel.isDM.toggle()
                channel.encryptionType = channel.isDM ? "x3dh" : "sender_keys"
            }
            if let creator = creators[channel.id.rawValue] { channel.createdBy = UserID(creator) }
        }
        return channel
    }

    func channels() async throws -> [ServerChannel] { try await base.channels().map(lie) }
    func channel(id: ChannelID) async throws -> ServerChannel { lie(try await base.channel(id: id)) }
    func openDirectMessage(userID: UserID) async throws -> ServerChannel { lie(try await base.openDirectMessage(userID: userID)) }
    func devices() async throws -> [ServerDevice] {
        let fail = lock.withLock { () -> Bool in
            defer { failedDeviceListings = max(0, failedDeviceListings - 1) }
            return failedDeviceListings > 0
        }
        if fail { throw ServerError.transport("connection reset") }
        return try await base.devices()
    }
}
