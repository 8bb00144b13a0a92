@_spi(Benchmarks) import E2EEMessaging
import Testing

@Suite("Event broadcaster")
struct EventBroadcasterTests {
    @Test("every subscriber gets every event in order")
    func fanOut() async {
        let broadcaster = EventBroadcaster()
        let first = broadcaster.events()
        let second = broadcaster.events()
        broadcaster.publish(.channelsChanged)
        broadcaster.publish(.sessionEnded)
        broadcaster.finish()
        var a: [AccountEvent] = []
        for await event in first { a.append(event) }
        var b: [AccountEvent] = []
        for await event in second { b.append(event) }
        #expect(a == [.channelsChanged, .sessionEnded])
        #expect(b == a)
    }

    @Test("a subscriber that never reads keeps only the newest events, and is told once that it lost some")
    func boundedBuffer() async {
        let broadcaster = EventBroadcaster(bufferLimit: 4)
        let slow = broadcaster.events()
        for attempt in 1...10 { broadcaster.publish(.connection(.reconnecting(attempt: attempt))) }
        broadcaster.finish()
        var seen: [AccountEvent] = []
        for await event in slow { seen.append(event) }
        #expect(seen == [.connection(.reconnecting(attempt: 8)), .connection(.reconnecting(attempt: 9)), .reloadNeeded,
                         .connection(.reconnecting(attempt: 10))])
    }

    @Test("a reader that keeps up never gets the reload signal; one that falls behind again gets it again")
    func reloadPerGap() async {
        let broadcaster = EventBroadcaster(bufferLimit: 4)
        var iterator = broadcaster.events().makeAsyncIterator()
        for round in 1...20 {
            broadcaster.publish(.connection(.reconnecting(attempt: round)))
            #expect(await iterator.next() == .connection(.reconnecting(attempt: round)))
        }
        for gap in 1...2 {
            for attempt in 1...6 { broadcaster.publish(.connection(.reconnecting(attempt: attempt))) }
            var drained: [AccountEvent] = []
            for _ in 0..<4 { if let event = await iterator.next() { drained.append(event) } }
            #expect(drained.filter { $0 == .reloadNeeded }.count == 1, "gap \(gap): \(drained)")
            #expect(drained.last == .connection(.reconnecting(attempt: 6)))
        }
        broadcaster.publish(.sessionEnded)
        #expect(await iterator.next() == .sessionEnded)
    }
}
