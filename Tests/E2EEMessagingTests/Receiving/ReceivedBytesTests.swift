import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

@Suite("Receive: bytes as the transport hands them over")
struct ReceivedBytesTests {
    @Test("bad frames and a truncated page are typed results that store nothing; a valid frame and page are admitted into the timeline")
    func framesAndPages() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("received-bytes-\(newID())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try KeyStore.open(at: directory.appendingPathComponent("store.sqlite"), key: .random())
        defer { try? store.close() }
        let local = try await LocalAccount.make(store: store, now: .now())
        try await Account.install(local.device, serverURL: "https://chat.example", into: store, at: .now())
        let peer = RemotePeer()
        try peer.connect(to: local.bundle(oneTimePrekey: 0))
        let account = try await Account.open(server: try PeerBundleServer(peer: peer), store: store)
        let channel = ReceivingChannel.dm()
        let ours = [local.device.deviceID.rawValue]
        let overSocket = try peer.dm("over the socket", channel: channel.id.rawValue, to: ours, at: t(1))
        let overREST = try peer.dm("over REST", channel: channel.id.rawValue, to: ours, at: t(2))

        // Bad input: a typed result each, nothing stored.
        let cut = #"{"type":"message.new","message":{"id":"#
        #expect(try await account.admitFrame(cut, channel: channel) == .undecodable(reason: "not a JSON object", byteCount: cut.utf8.count))
        let incomplete = #"{"type":"message.new","message":{"id":"\#(newID())"}}"#
        #expect(try await account.admitFrame(incomplete, channel: channel)
            == .undecodable(reason: "bad message.new payload", byteCount: incomplete.utf8.count))
        let typing = #"{"type":"typing.start","user_id":"\#(peer.userID)","channel_id":"\#(channel.id.rawValue)"}"#
        #expect(try await account.admitFrame(typing, channel: channel)
            == .otherEvent(.typing(userID: UserID(peer.userID), channelID: channel.id, started: true)))
        let page = try Self.page([overSocket, overREST])
        let truncated = Array(page.prefix(page.count / 2))
        let refused = try await account.admitPage(truncated, channel: channel)
        guard case .undecodable(let reason, let byteCount) = refused else {
            Issue.record("a truncated page was \(refused)")
            return
        }
        #expect(reason.hasPrefix("page 0: MessagePage: ") && byteCount == truncated.count)
        #expect(try await account.admitPages([try Self.page([overREST]), truncated], channel: channel).outcomes.isEmpty)
        #expect(try await store.messageCount(channelID: channel.id.rawValue) == 0)
        #expect(try await store.oneTimePrekeyCount(state: .consumed) == 0)

        // A frame, then a page overlapping it: the row once, both texts in the timeline.
        let frame = try Self.frame(overSocket)
        #expect(try await account.admitFrame(frame, channel: channel) == .admitted([ReceiveOutcome(messageID: overSocket.id, result: .decrypted)]))
        let outcomes = try await account.admitPages([try Self.page([]), page], channel: channel).outcomes
        #expect(outcomes.count == 2)
        #expect(outcomes.first { $0.messageID == overSocket.id }?.result == .duplicate(of: nil))
        #expect(outcomes.first { $0.messageID == overREST.id }?.result == .decrypted)
        let items = try await TimelineReader(store: store).page(channelID: channel.id, limit: 10)
        #expect(items.map(\.text) == ["over the socket", "over REST"])
        #expect(try await store.messageCount(channelID: channel.id.rawValue, state: .decrypted) == 2)
        await account.shutdown()
    }

    /// The `message.new` frame the server sends for `message`.
    private static func frame(_ message: ServerMessage) throws -> String {
        struct Frame: Encodable {
            let type = "message.new"
            let message: ServerMessage
        }
        return String(decoding: try JSONEncoder().encode(Frame(message: message)), as: UTF8.self)
    }

    /// The body of a page of `messages` (oldest first).
    private static func page(_ messages: [ServerMessage]) throws -> [UInt8] {
        Array(try JSONEncoder().encode(MessagePage(messages: messages, hasMore: false)))
    }
}

/// A server that lists `peer`'s device (with a signed prekey made from its identity, so the
/// directory's check of the bundle passes) and accepts key uploads (the account republishes its
/// bundle once a one-time prekey is consumed); every other call fails.
private final class PeerBundleServer: UnansweredServerCalls {
    private let userID: UserID
    private let bundle: DeviceBundle

    init(peer: RemotePeer) throws {
        let signedPrekey = try E2EECrypto.SignedPrekey(id: 1, identity: peer.identity, createdAt: 1_800_000_000)
        userID = UserID(peer.userID)
        bundle = DeviceBundle(deviceID: DeviceID(peer.deviceID), identityKey: peer.identity.publicIdentity.base64,
                              signedPreKey: signedPrekey.published.base64, signedPreKeySignature: signedPrekey.signatureBase64,
                              oneTimePreKey: nil, oneTimePreKeyCount: 0)
    }

    func bundles(userID: UserID) async throws -> [DeviceBundle] { userID == self.userID ? [bundle] : [] }

    func uploadKeys(_ upload: KeyBundleUpload) async throws {}
}
