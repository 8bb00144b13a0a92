#if DEBUG
/// Debug builds only: the named points at which a test may kill the process
/// (`E2EE_TEST_CRASH_AT`, the linking proposal's test hooks), to prove that what was saved before
/// the point is resumed and nothing is lost or doubled. Release builds have no such points.
public enum TestCrashPoint: String, Sendable, CaseIterable {
    /// The primary file was saved with a removal's new epoch, before any of the removal's steps.
    case primaryFileSaved
    /// A grant's certificate was logged in the primary file, before the grant left.
    case grantLogged
    /// A new device committed a transfer chunk, before its acknowledgement left.
    case chunkCommitted
    /// Received rows were handed in to wait, uncommitted, for a transaction (the commit window
    /// of issue 47, decision 2) after an earlier receive transaction committed.
    case receiveWindowWaiting
}

extension AccountConfiguration {
    /// Debug builds only: calls ``debugCrash`` at `point` (a test's hook kills the process there).
    func testCrash(at point: TestCrashPoint) {
        debugCrash?(point)
    }
}
#endif
