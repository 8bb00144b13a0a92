@_spi(StoreInternals) import E2EEKeyStore

/// The chunks one lane has handed to the chunk committer and not settled yet, oldest first.
struct LaneCommits {
    /// A chunk: the lane's steps (with their outcome positions; each holds its write) and the
    /// ticket of the commit that holds their writes.
    struct Chunk {
        let entries: [(index: Int, step: ProcessingStep)]
        let ticket: CommitTicket
    }

    private var chunks: [Chunk] = []

    /// Whether no chunk is left to settle.
    var isEmpty: Bool { chunks.isEmpty }

    /// Hands `writes` (the steps' writes, in order, with the lane's final key states) to the
    /// lane's run of the chunk committer, after every chunk before; the committer takes them
    /// over (``ChunkCommitter/Run/submit(_:)``).
    mutating func start(entries: [(index: Int, step: ProcessingStep)], writes: consuming [ReceiveWrite], committer: ChunkCommitter.Run) {
        chunks.append(Chunk(entries: entries, ticket: committer.submit(writes)))
    }

    /// ``start(entries:writes:committer:)`` for the lane's last chunk, which it waits for at
    /// once: committed in this task when no commit runs (``ChunkCommitter/Run/commitLast(_:)``).
    mutating func startLast(entries: [(index: Int, step: ProcessingStep)], writes: consuming [ReceiveWrite], committer: ChunkCommitter.Run) async {
        chunks.append(Chunk(entries: entries, ticket: await committer.commitLast(writes)))
    }

    /// Whether a chunk not settled yet holds a row queued to wait for one of `keys`.
    func holdsRow(waitingForAnyOf keys: [String]) -> Bool {
        chunks.contains { chunk in chunk.entries.contains { ReceiveLane.waits($0.step, forAnyOf: keys) } }
    }

    /// The oldest chunk and what its commit did, once it is done; nil when none is left.
    /// - Throws: the commit's error (the chunk is then dropped; later ones fail the same way).
    mutating func next() async throws -> (Chunk, [ReceiveWriteResult])? {
        guard !chunks.isEmpty else { return nil }
        let chunk = chunks.removeFirst()
        return (chunk, try await chunk.ticket.value())
    }

    /// The oldest chunk and what its commit did, if that commit is done; nil otherwise (or
    /// when none is left). Never waits.
    /// - Throws: the commit's error (the chunk is then dropped).
    mutating func nextDone() throws -> (Chunk, [ReceiveWriteResult])? {
        guard let chunk = chunks.first, let result = chunk.ticket.result else { return nil }
        chunks.removeFirst()
        return (chunk, try result.get())
    }

    /// Waits for every chunk's commit to end, ignoring what they did (after an error, so
    /// nothing of the lane is still being written when it returns).
    mutating func finish() async {
        for chunk in chunks { _ = try? await chunk.ticket.value() }
        chunks.removeAll()
    }
}
