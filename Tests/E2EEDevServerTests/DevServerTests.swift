import Testing

/// Every dev-server suite, run one test at a time. Each test starts its own server on port 0, so
/// they could run in parallel; but on this 2-core Linux machine dozens of in-process servers and
/// clients at once (all on NIO's two singleton event loops) occasionally stalled the whole test
/// process (no thread blocked, no timer firing), while serial runs never did.
@Suite("DevServer", .serialized)
enum DevServerTests {}
