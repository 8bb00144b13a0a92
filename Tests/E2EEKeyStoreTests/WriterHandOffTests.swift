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
        // increment.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await store.handOff.write { db in
                        let value = try Int.fetchOne(db, sql: "SELECT value FROM counter") ?? -1
                        try db.execute(sql: "UPDATE counter SET value = ?", arguments: [value + 1])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.read { db in try Int.fetchOne(db, sql: "SELECT value FROM counter") } == 200)
    }

    @Test(.timeLimit(.minutes(1)))
    func anAccessWaitsForAWriteThatDoesNotGoThroughIt() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        try await store.handOff.write { db in try db.execute(sql: "CREATE TABLE log (entry TEXT NOT NULL)") }
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let other = Task {
            try await store.write { db in
                startedContinuation.yield()
                // Released from a dispatch thread, never from a task: a synchronous access
                // blocks its thread while it waits, as it may in the product.
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { release.signal() }
                release.wait()
                try db.execute(sql: "INSERT INTO log VALUES ('other')")
            }
        }
        for await _ in started { break }
        try await store.handOff.write { db in try db.execute(sql: "INSERT INTO log VALUES ('mine')") }
        try await other.value
        #expect(try await store.read { db in try String.fetchAll(db, sql: "SELECT entry FROM log ORDER BY rowid") } == ["other", "mine"])
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
