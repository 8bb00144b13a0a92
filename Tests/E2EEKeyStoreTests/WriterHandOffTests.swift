import Dispatch
@testable import E2EEKeyStore
import GRDB
import Testing

/// The receive path's accesses to the writer connection (``WriterHandOff``), on a real store
/// file (a `DatabasePool`): on the calling thread when free, suspended behind a busy writer,
/// serialised either way.
@Suite struct WriterHandOffTests {
    @Test func aWriteCommitsWhatItDoesAndAFailedOneLeavesNothing() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        try await store.handOff.write { db in try db.execute(sql: "CREATE TABLE counter (value INTEGER NOT NULL)") }
        let inserted = try await store.handOff.write { db -> Int64 in
            try db.execute(sql: "INSERT INTO counter VALUES (1)")
            return db.lastInsertedRowID
        }
        #expect(inserted == 1)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.handOff.write { db in
                try db.execute(sql: "INSERT INTO counter VALUES (2)")
                throw Refused()
            }
        }
        #expect(try await store.read { db in try Int.fetchAll(db, sql: "SELECT value FROM counter") } == [1])
    }

    @Test(.timeLimit(.minutes(1)))
    func concurrentAccessesAreSerialisedAndEveryOneRuns() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        try await store.handOff.write { db in
            try db.execute(sql: "CREATE TABLE counter (value INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO counter VALUES (0)")
        }
        // Read, then write what was read plus one: two accesses running at once would lose an
        // increment. Half go through the receive path's access, half through the store's other
        // writes.
        let increment: @Sendable (Database) throws -> Void = { db in
            let value = try Int.fetchOne(db, sql: "SELECT value FROM counter") ?? -1
            try db.execute(sql: "UPDATE counter SET value = ?", arguments: [value + 1])
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    if index.isMultiple(of: 2) { try await store.handOff.write(increment) } else { try await store.write(increment) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.read { db in try Int.fetchOne(db, sql: "SELECT value FROM counter") } == 200)
    }

    /// Another write holds the writer: one of the store's own (counted: the access suspends
    /// behind it) or GRDB's directly (not counted: the access blocks its thread until it ends).
    /// Either way it runs after, and both commit.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func anAccessRunsAfterAWriteThatHoldsTheWriter(counted: Bool) async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        try await store.handOff.write { db in try db.execute(sql: "CREATE TABLE log (entry TEXT NOT NULL)") }
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holding: @Sendable (Database) throws -> Void = { db in
            startedContinuation.yield()
            // Released from a dispatch thread, never from a task: a synchronous access blocks
            // its thread while it waits.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { release.signal() }
            release.wait()
            try db.execute(sql: "INSERT INTO log VALUES ('other')")
        }
        let other = Task {
            if counted { try await store.write(holding) } else { try await store.uncountedWriter.write(holding) }
        }
        for await _ in started { break }
        try await store.handOff.write { db in try db.execute(sql: "INSERT INTO log VALUES ('mine')") }
        try await other.value
        #expect(try await store.read { db in try String.fetchAll(db, sql: "SELECT entry FROM log ORDER BY rowid") } == ["other", "mine"])
    }

    /// A brief read (``KeyStore/briefRead(_:)``) runs on the free writer, and reads through a
    /// pool reader while a write holds the writer: it never waits for that write, and sees what
    /// was committed before it.
    @Test(.timeLimit(.minutes(1)))
    func aBriefReadTakesTheWriterOnlyWhenItIsFree() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        try await store.handOff.write { db in
            try db.execute(sql: "CREATE TABLE log (entry TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO log VALUES ('committed')")
        }
        let count: @Sendable (Database) throws -> Int = { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM log") ?? -1 }
        #expect(try await store.handOff.runIfFree(count) == 1)
        #expect(try await store.briefRead(count) == 1)

        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holding = Task {
            try await store.write { db in
                try db.execute(sql: "INSERT INTO log VALUES ('uncommitted')")
                startedContinuation.yield()
                release.wait()
            }
        }
        for await _ in started { break }
        // The writer is held: not run there, and the read goes to a reader, without waiting.
        #expect(try await store.handOff.runIfFree(count) == nil)
        #expect(try await store.briefRead(count) == 1)
        release.signal()
        try await holding.value
        #expect(try await store.briefRead(count) == 2)
    }

    @Test func aCancelledTaskRunsNothing() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        try await store.handOff.write { db in try db.execute(sql: "CREATE TABLE log (entry TEXT NOT NULL)") }
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await store.handOff.write { db in try db.execute(sql: "INSERT INTO log VALUES ('cancelled')") }
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(try await store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM log") } == 0)
    }
}
