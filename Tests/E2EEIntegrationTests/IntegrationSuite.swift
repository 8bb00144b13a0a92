import Testing

/// Every integration suite that starts a development server runs inside this one, a test at a
/// time, so the 2-core CI machine is never asked to run several servers and clients at once.
@Suite("Integration", .serialized)
enum IntegrationTests {}
