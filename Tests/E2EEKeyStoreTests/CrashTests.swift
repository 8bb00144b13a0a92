import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import E2EETestSupport
import Foundation
import GRDB
import Testing

/// A worker process runs store operations in a loop and is killed with SIGKILL at random
/// moments. After each kill the file must open, pass `integrity_check`, hold every operation
/// the worker reported committed, and hold no half-applied operation.
///
/// 100 kills by default (CI); set `E2EE_CRASH_KILLS` (for instance 1000) for a longer run.
@Suite struct CrashTests {
    // The worker's fixed values (Tests/StoreCrashWorker/CrashWorkload.swift).
    static let channelID = "crash-channel"
    static let address = SenderKeyAddress(channelID: channelID, senderDeviceID: "peer-device", keyID: 7)

    /// The worker binary: built beside the test bundle in the build products directory.
    static func workerURL() -> URL? {
        var candidates: [URL] = []
        let argv0 = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var directory = argv0.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        candidates += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        candidates.append(RepositoryPaths.root.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("StoreCrashWorker") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// What a killed run reported on stdout: the last committed step of each kind.
    struct Reported {
        var decrypted = 0
        var queued = 0
        var sent: Set<Int64> = []

        init(_ output: String) {
            for line in output.split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard parts.count == 2, let n = Int(parts[1]) else { continue }
                switch parts[0] {
                case "D": decrypted = max(decrypted, n)
                case "O": queued = max(queued, n)
                case "S": sent.insert(Int64(n))
                default: break
                }
            }
        }
    }

    @Test func whenKilledAtRandomMoments_thenEveryCommittedOperationIsCompleteAndNoneHalfApplied() async throws {
        let kills = ProcessInfo.processInfo.environment["E2EE_CRASH_KILLS"].flatMap(Int.init) ?? 100
        let worker = try #require(Self.workerURL(), "StoreCrashWorker not found next to the test bundle; run swift build --build-tests")
        let dir = try TemporaryDirectory()
        var keyBytes = SystemRandom().bytes(count: 32)
        let keyHex = Hex.encode(keyBytes)
        let key = try StoreKey(SecretBytes(consuming: &keyBytes))
        var generator = SystemRandomNumberGenerator()
        var progress = Progress()
        var killedMidRun = 0

        for round in 0..<kills {
            let child = try KillableChild(
                executable: worker.path, arguments: [dir.storeURL.path], environment: ["E2EE_WORKER_KEY": keyHex]
            )
            try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...120_000_000, using: &generator))
            let (killed, output) = child.killAndReap()
            let reported = Reported(output)
            #expect(killed, "round \(round): worker exited by itself before the kill")
            if killed { killedMidRun += 1 }

            let store = try KeyStore.open(at: dir.storeURL, key: key)
            #expect(try await store.integrityCheck() == ["ok"], "round \(round)")
            progress = try await Self.verify(store, reported: reported, since: progress, round: round)
            try store.close()
        }
        // The test must have exercised something: operations were committed across the kills.
        #expect(progress.decrypted >= 10, "only \(progress.decrypted) decryptions committed in \(kills) runs")
        #expect(killedMidRun == kills)
    }

    /// What the store held after a round: committed decryptions and queued messages.
    struct Progress: Sendable {
        var decrypted = 0
        var queued = 0
    }

    /// Checks every invariant. Rows that earlier rounds verified are counted, not reopened one
    /// by one, so each round stays short as the store grows.
    static func verify(_ store: KeyStore, reported: Reported, since previous: Progress, round: Int) async throws -> Progress {
        try await store.read { db in
            let receivers = store.receiverSenderKeyStore
            guard let receiver = try receivers.loadReceiverSenderKey(address, db) else {
                // Killed before setup committed: nothing at all may be there.
                #expect(try store.timelineStore.countMessages(channelID: channelID, db) == 0, "round \(round)")
                #expect(reported.decrypted == 0)
                return Progress()
            }
            let m = try #require(number(receiver.state, "iter"), "round \(round): receiver state unreadable")
            // Durability: every decryption reported committed is there, and nothing went back.
            #expect(m >= reported.decrypted, "round \(round): reported \(reported.decrypted) decrypted, store has \(m)")
            #expect(m >= previous.decrypted, "round \(round): decryptions lost")
            // Decryption k is all or nothing: state iter:m ⇔ session session:m ⇔ rows 1…m decrypted.
            let session = try store.sessionStore.loadCurrentSession(userID: "peer", deviceID: address.senderDeviceID, db)
            #expect(session.flatMap { number($0.state, "session") } == m, "round \(round): session and sender key differ")
            #expect(try store.sessionStore.loadSessions(userID: "peer", deviceID: address.senderDeviceID, db).count == 1, "round \(round)")
            for k in (previous.decrypted + 1)..<(m + 1) {
                let message = try store.timelineStore.loadMessage(id: "in-\(k)", db)
                #expect(message?.state == .decrypted, "round \(round): in-\(k) not decrypted")
                #expect(text(message?.plaintext) == "message \(k)", "round \(round)")
            }
            let pending = try store.pendingStore.loadPending(db)
            let pendingRows = try store.timelineStore.countMessages(channelID: channelID, state: .pendingKey, db)
            #expect(pending.map(\.messageID).allSatisfy { $0 == "in-\(m + 1)" }, "round \(round): stray pending rows")
            #expect(pendingRows == pending.count, "round \(round): pending rows and pending timeline rows differ")

            // Queueing j is all or nothing: own state sent:j ⇔ outbox rows 1…j.
            let own = try #require(try store.ownSenderKeyStore.loadCurrentSenderKey(channelID: channelID, db))
            let j = try #require(number(own.state, "sent"))
            #expect(own.messagesSent == j, "round \(round)")
            #expect(j >= reported.queued, "round \(round): reported \(reported.queued) queued, store has \(j)")
            #expect(try db.count("SELECT COUNT(*) FROM outbox") == j, "round \(round): outbox rows differ from the sender state")
            #expect(try db.count("SELECT COALESCE(MAX(sequence), 0) FROM outbox") == j, "round \(round)")
            #expect(reported.sent.allSatisfy { $0 <= Int64(j) }, "round \(round): a reported send is missing")
            for sequence in Int64(previous.queued + 1)..<Int64(j + 1) {
                let message = try #require(try store.outboxStore.loadOutboxMessage(localID: "local-\(sequence)", db), "round \(round)")
                #expect(message.sequence == sequence)
                #expect(text(message.plaintext) == "out \(sequence)")
                #expect(message.content == "content \(sequence)")
                if reported.sent.contains(sequence) {
                    #expect(message.state == .sent, "round \(round): reported sent but not stored")
                }
                // Marking sent is all or nothing: sent ⇔ own timeline row with the plaintext.
                let row = try store.timelineStore.loadMessage(id: "own-\(sequence)", db)
                if message.state == .sent {
                    #expect(row?.isOwn == true && text(row?.plaintext) == "out \(sequence)", "round \(round)")
                } else {
                    #expect(row == nil, "round \(round): own timeline row without a sent outbox row")
                }
            }
            let sentCount = try db.count("SELECT COUNT(*) FROM outbox WHERE state = 'sent'")
            let ownRows = try db.count("SELECT COUNT(*) FROM timeline WHERE is_own = 1")
            #expect(sentCount == ownRows, "round \(round): sent rows and own timeline rows differ")
            #expect(try store.timelineStore.countMessages(channelID: channelID, state: .decrypted, db) == m + ownRows, "round \(round)")
            return Progress(decrypted: m, queued: j)
        }
    }

    static func text(_ secret: SecretBytes?) -> String? { secret.map { String(decoding: $0.unprotectedCopy(), as: UTF8.self) } }

    static func number(_ secret: SecretBytes, _ prefix: String) -> Int? {
        guard let value = text(secret), value.hasPrefix(prefix + ":") else { return nil }
        return Int(value.dropFirst(prefix.count + 1))
    }
}
