/// CPU work on the items of a batch, split over the cores the process may use (``UsableCores``).
enum ParallelWork {
    /// Below this many items per core the work runs on the calling task (a child task costs
    /// more than it saves).
    static let threshold = 8

    /// `transform` of every item, in order, run by up to one child task per core, each on a
    /// contiguous share.
    static func map<Item: Sendable, Output: Sendable>(_ items: [Item], _ transform: @escaping @Sendable (Item) -> Output) async -> [Output] {
        let workers = min(cores, items.count / threshold)
        guard workers >= 2 else { return items.map(transform) }
        return await withTaskGroup(of: (Int, [Output]).self) { group in
            let size = (items.count + workers - 1) / workers
            for worker in 0..<workers {
                let share = Array(items[min(worker * size, items.count)..<min((worker + 1) * size, items.count)])
                group.addTask { (worker, share.map(transform)) }
            }
            var parts = Array(repeating: [Output](), count: workers)
            for await (worker, part) in group { parts[worker] = part }
            return parts.flatMap { $0 }
        }
    }

    private static let cores = UsableCores.count
}
