import E2EEMessaging
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

    @Test("a subscriber that never reads keeps only the newest events")
    func boundedBuffer() async {
        let broadcaster = EventBroadcaster(bufferLimit: 2)
        let slow = broadcaster.events()
        for attempt in 1...5 { broadcaster.publish(.connection(.reconnecting(attempt: attempt))) }
        broadcaster.finish()
        var seen: [AccountEvent] = []
        for await event in slow { seen.append(event) }
        #expect(seen == [.connection(.reconnecting(attempt: 4)), .connection(.reconnecting(attempt: 5))])
    }
}
