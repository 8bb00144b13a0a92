import Synchronization

/// Ed25519 public keys that passed point validation recently, so a key that arrives again —
/// a peer that has had no reply repeats its identity in every prekey message — is not
/// validated again (~45 µs each).
///
/// Validation is a pure function of 32 public bytes, so remembering its result reveals and
/// changes nothing: only keys that passed are kept, and a key not here is validated in full.
/// Bounded: when full it is emptied and starts over.
final class ValidPointCache: Sendable {
    /// The process-wide cache.
    static let shared = ValidPointCache(capacity: 4_096)

    private let capacity: Int
    private let points = Mutex<Set<[UInt8]>>([])

    init(capacity: Int) { self.capacity = capacity }

    /// Whether `point` passed validation before.
    func contains(_ point: [UInt8]) -> Bool {
        points.withLock { $0.contains(point) }
    }

    /// Records that `point` passed validation.
    func insert(_ point: [UInt8]) {
        points.withLock { points in
            if points.count >= capacity { points.removeAll(keepingCapacity: true) }
            points.insert(point)
        }
    }
}
