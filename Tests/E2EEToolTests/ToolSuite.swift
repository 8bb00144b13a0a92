import Testing

/// Every tool suite that starts a development server runs inside this one, a test at a time,
/// so the 2-core CI machine never runs several servers and tool processes at once.
@Suite("Tool", .serialized)
enum ToolTests {}
