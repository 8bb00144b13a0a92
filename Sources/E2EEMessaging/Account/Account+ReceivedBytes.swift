import Foundation

/// What ``Account/admitFrame(_:channel:)`` and ``Account/admitPages(_:channel:)`` did with the
/// bytes they were given. Not API: it exists for the ingest benchmark and the fuzzers.
@_spi(Benchmarks) public enum ReceivedBytesResult: Sendable, Equatable {
    /// The bytes decoded to posted messages, which went through the account's one way in:
    /// one outcome each (a message of another channel than the one given is refused there,
    /// ``ReceiveOutcome/Result/refused(_:)`` with ``UndecryptableReason/wrongChannel``).
    case admitted([ReceiveOutcome])
    /// The frame decoded to an event that is not `message.new`: nothing was admitted (the
    /// connection hands such an event to the sync engine, which this entry leaves out).
    case otherEvent(RealtimeEvent)
    /// The bytes did not decode — a frame as ``RealtimeEventDecoder`` reports it, a page as the
    /// HTTP client's decoding fails — and nothing was admitted. `reason` never contains the input.
    case undecodable(reason: String, byteCount: Int)

    /// The outcomes of ``admitted(_:)``; empty otherwise.
    public var outcomes: [ReceiveOutcome] {
        if case .admitted(let outcomes) = self { return outcomes }
        return []
    }
}

extension Account {
    /// Admits one socket frame's text as the connection receives it: decoded with
    /// ``RealtimeEventDecoder`` exactly as the connection decodes it and, for `message.new`,
    /// handed to the account's one way in for posted messages (own echoes, the rollback check,
    /// then the receive pipeline) as the sync engine hands it over: a batch of one, in
    /// `channel`. What is about sync (cursor marks, the server's removals) is left out.
    ///
    /// Not API: it exists so that the ingest benchmark and the fuzzers feed the account what the
    /// transport hands over, bytes, through the path an app's messages take. The caller names
    /// the channel's encryption (`channel`): the store of a benchmark does not learn its
    /// channels from a server. The decoding runs on the caller's task, not on the account.
    /// - Returns: ``ReceivedBytesResult/admitted(_:)``, ``ReceivedBytesResult/otherEvent(_:)``,
    ///   or ``ReceivedBytesResult/undecodable(reason:byteCount:)`` (never a throw for bad input).
    /// - Throws: key store errors, the outbox's errors (as the account's receive path).
    @_spi(Benchmarks) public nonisolated func admitFrame(_ text: String, channel: ReceivingChannel) async throws -> ReceivedBytesResult {
        // One frame gives exactly one result.
        try await admitFrames([(text, channel)]).first ?? .admitted([])
    }

    /// Admits socket frames that arrived in a row, as the sync engine admits the messages that
    /// queued up in the connection's delegate queue (``SyncEngine/received(messages:)``): each
    /// frame decoded as ``admitFrame(_:channel:)`` decodes it, then the `message.new` ones grouped
    /// by channel, each group in arrival order in one call of the account's one way in.
    ///
    /// Not API: as ``admitFrame(_:channel:)``, for the ingest benchmark.
    /// - Returns: per channel group, ``ReceivedBytesResult/admitted(_:)``; per frame that is not
    ///   `message.new`, ``ReceivedBytesResult/otherEvent(_:)`` or
    ///   ``ReceivedBytesResult/undecodable(reason:byteCount:)``.
    /// - Throws: as ``admitFrame(_:channel:)``.
    @_spi(Benchmarks) public nonisolated func admitFrames(_ frames: [(text: String, channel: ReceivingChannel)]) async throws -> [ReceivedBytesResult] {
        var results: [ReceivedBytesResult] = []
        var messages: [(message: ServerMessage, channel: ReceivingChannel)] = []
        for frame in frames {
            switch RealtimeEventDecoder().decode(frame.text) {
            case .event(.messageNew(let message)): messages.append((message, frame.channel))
            case .event(let event): results.append(.otherEvent(event))
            case .malformedFrame(let reason, let byteCount): results.append(.undecodable(reason: reason, byteCount: byteCount))
            case .closed: results.append(.undecodable(reason: "not a frame", byteCount: frame.text.utf8.count))
            }
        }
        for (_, group) in MessagesByChannel.group(messages, by: \.channel.id) {
            guard let channel = group.first?.channel else { continue }
            results.append(.admitted(try await admit(group.map(\.message), channel: channel)))
        }
        return results
    }

    /// Admits one REST page's JSON body (`GET /channels/{id}/messages`) as the HTTP client
    /// receives it: decoded as the client decodes a page (`ServerJSON.decodePage`), then handed
    /// to the account's one way in, in `channel`.
    ///
    /// Not API: as ``admitFrame(_:channel:)``, for the ingest benchmark and the fuzzers.
    /// - Returns: as ``admitPages(_:channel:)``.
    /// - Throws: key store errors, the outbox's errors (as the account's receive path).
    @_spi(Benchmarks) public nonisolated func admitPage(_ body: [UInt8], channel: ReceivingChannel) async throws -> ReceivedBytesResult {
        try await admitPages([body], channel: channel)
    }

    /// Admits the REST page bodies of one catch-up of `channel`, oldest page first, as the sync
    /// engine admits a catch-up: each body decoded as the HTTP client decodes a page
    /// (`ServerJSON.decodePage`: read from the bytes, or with a `JSONDecoder`), then every
    /// page's messages, oldest → newest, in one call of the account's one way in. A body that
    /// does not decode fails the catch-up as the client's decoding error fails it: nothing of any
    /// page is admitted.
    ///
    /// Not API: as ``admitFrame(_:channel:)``, for the ingest benchmark and the fuzzers. The
    /// decoding runs on the caller's task, not on the account.
    /// - Returns: ``ReceivedBytesResult/admitted(_:)`` (no outcome for pages without messages),
    ///   or ``ReceivedBytesResult/undecodable(reason:byteCount:)`` naming the first body that
    ///   did not decode (never a throw for bad input).
    /// - Throws: key store errors, the outbox's errors (as the account's receive path).
    @_spi(Benchmarks) public nonisolated func admitPages(_ bodies: [[UInt8]], channel: ReceivingChannel) async throws -> ReceivedBytesResult {
        var messages: [ServerMessage] = []
        for (index, body) in bodies.enumerated() {
            do {
                messages += try ServerJSON.decodePage(body).messages
            } catch ServerError.decoding(let reason) {
                return .undecodable(reason: "page \(index): \(reason)", byteCount: body.count)
            }
        }
        guard !messages.isEmpty else { return .admitted([]) }
        return .admitted(try await admit(messages, channel: channel))
    }

    /// The receive pipeline's phase times summed over every call so far. Not API: the ingest
    /// benchmark logs them with each sample.
    @_spi(Benchmarks) public nonisolated func receivePhaseTimes() -> ReceivePhaseTimes {
        pipeline.phaseTimes()
    }
}
