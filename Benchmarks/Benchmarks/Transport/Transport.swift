import Benchmark

// Messages delivered per second through dev server → WebSocket → decoded `RealtimeEvent`
// (issue 5), all in one process over loopback, with one receiving socket
// (`WebSocketRealtimeConnector`, keepalive off so no ping is in the way):
// - "Delivery REST 1 sender x100": one sample = one sender posts 100 messages one after the
//   other over REST (`HTTPChatServer.sendMessage`) and the receiver decodes the 100
//   `message.new` events. Includes the dev server's SQLite insert per message.
// - "Delivery REST 4 senders x100": the same 100 messages from four senders at once (25 each).
// - "Delivery injected x1000": the server side publishes 1,000 prepared `message.new` frames
//   straight to the receiver's socket (`FaultInjector.sendRawFrame`): no REST, no database; the
//   socket, the frame loop and the decoder only.
// - "Latency REST one message" / "Latency injected one event": one sample = one message, from
//   the POST (or the injection) to its decoded event; the distribution gives p50 and p99.
// `transport.sh` turns sample times into messages per second.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(20),
        maxIterations: 200
    )
    registerDeliveryBenchmarks()
    registerLatencyBenchmarks()
}
