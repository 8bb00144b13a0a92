import E2EECrypto
import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation

/// Our account with a real KeyStore, the receive pipeline over it, the fakes of its two seams,
/// an event subscription, and helpers to make channels and peers.
struct ReceiveHarness {
    let store: KeyStore
    let account: LocalAccount
    let pipeline: ReceivePipeline
    let broadcaster: EventBroadcaster
    let events: AsyncStream<AccountEvent>
    let listed: FakeListedIdentities
    let consumed: ConsumedPrekeys
    let clock: TestClock
    let reader: TimelineReader

    static func make(store: KeyStore? = nil, account: LocalAccount? = nil, listed: FakeListedIdentities = FakeListedIdentities(),
                     clock: TestClock = TestClock(), chunkSize: Int = 500,
                     random: any RandomSource = SystemRandom(), locks: KeyedAsyncLock? = nil,
                     listedIdentityLimit: Duration = .seconds(5)) async throws -> ReceiveHarness {
        let store = try store ?? KeyStore.inMemory()
        let local: LocalAccount
        if let account { local = account } else { local = try await LocalAccount.make(store: store, now: clock.now) }
        let broadcaster = EventBroadcaster()
        let consumed = ConsumedPrekeys()
        let pipeline = ReceivePipeline(store: store, device: local.device, listedIdentities: listed, events: broadcaster,
                                       chunkSize: chunkSize, clock: clock.closure, random: random,
                                       oneTimePrekeysConsumed: consumed.callback, locks: locks, listedIdentityLimit: listedIdentityLimit)
        return ReceiveHarness(store: store, account: local, pipeline: pipeline, broadcaster: broadcaster, events: broadcaster.events(),
                              listed: listed, consumed: consumed, clock: clock, reader: TimelineReader(store: store))
    }

    var deviceID: String { account.device.deviceID.rawValue }

    /// A peer that has started a session with our device (and is listed by the server).
    func connectedPeer(userID: String = newID(), oneTimePrekey index: Int? = 0) throws -> RemotePeer {
        let peer = RemotePeer(userID: userID)
        try peer.connect(to: account.bundle(oneTimePrekey: index))
        listed.list(peer)
        return peer
    }

    /// Ingests (`ownEchoes`: the ids the outbox recognised as ours) and returns the outcomes by
    /// message id (each id must have one outcome).
    func ingest(_ messages: [ServerMessage], _ channel: ReceivingChannel, ownEchoes: Set<MessageID> = []) async throws -> [MessageID: ReceiveOutcome.Result] {
        var byID: [MessageID: ReceiveOutcome.Result] = [:]
        for outcome in try await pipeline.ingest(messages, channel: channel, ownEchoes: ownEchoes) { byID[outcome.messageID] = outcome.result }
        return byID
    }

    /// The channel's timeline as the app reads it.
    func timeline(_ channel: ReceivingChannel, limit: Int = 1000) async throws -> [TimelineItem] {
        try await reader.page(channelID: channel.id, limit: limit)
    }

    /// The events published so far (the broadcaster is finished: call once, at the end).
    func publishedEvents() async -> [AccountEvent] {
        broadcaster.finish()
        var all: [AccountEvent] = []
        for await event in events { all.append(event) }
        return all
    }
}

extension ReceivingChannel {
    static func dm() -> ReceivingChannel { ReceivingChannel(id: ChannelID(newID()), encryption: .x3dh) }
    static func group() -> ReceivingChannel { ReceivingChannel(id: ChannelID(newID()), encryption: .senderKeys) }
}

/// Microseconds for test timestamps: `t(5)` is five seconds after a fixed origin.
func t(_ seconds: Int64, _ micros: Int64 = 0) -> Int64 { 1_800_000_000_000_000 + seconds * 1_000_000 + micros }
