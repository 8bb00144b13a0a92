/// The sessions with one remote device (docs/spec/protocol.md §3): the current state, used for every
/// send, and up to ``ProtocolLimits/maxArchivedSessions`` archived states, most recently used
/// first, tried after the current one when decrypting. A value; operations return new records.
public struct SessionRecord: Sendable, CustomStringConvertible {
    /// The state used for sending.
    public let current: SessionState
    /// Older states, most recently used first.
    public let archived: [SessionState]

    /// A record holding only `current`.
    public init(current: SessionState) {
        self.init(current: current, archived: [])
    }

    init(current: SessionState, archived: [SessionState]) {
        self.current = current
        self.archived = Array(archived.prefix(ProtocolLimits.maxArchivedSessions))
    }

    /// `state` installed as current; the previous current (if any) becomes the most recently
    /// used archived state, and the least recently used beyond the limit is dropped.
    public static func installing(_ state: SessionState, into existing: SessionRecord?) -> SessionRecord {
        guard let existing else { return SessionRecord(current: state) }
        return SessionRecord(current: state, archived: [existing.current] + existing.archived)
    }

    /// The record after the state at `index` (0 = current, 1… = archived) decrypted and became `updated`.
    func promoting(index: Int, to updated: SessionState) -> SessionRecord {
        guard index > 0 else { return SessionRecord(current: updated, archived: archived) }
        var others = archived
        others.remove(at: index - 1)
        return SessionRecord(current: updated, archived: [current] + others)
    }

    /// Current first, then archived in MRU order.
    var allStates: [SessionState] { [current] + archived }

    /// Encrypts `plaintext` in the current state, drawing the message's nonce from `random`.
    /// - Returns: the record to persist before sending, and the message bytes.
    /// - Throws: as the current state's encryption: ``ProtocolError/cannotSendYet`` (a
    ///   responder that has not received), ``ProtocolError/limitExceeded(_:limit:actual:)``,
    ///   ``ProtocolError/crypto(_:)``.
    public func encrypt(_ plaintext: some ByteView, using random: some RandomSource = SystemRandom()) throws -> PairwiseEncryption {
        let (state, message) = try current.encrypting(plaintext, using: random)
        return PairwiseEncryption(record: SessionRecord(current: state, archived: archived), message: message)
    }

    /// Decrypts a normal message: in the current state, else in each archived state (MRU). The
    /// state that decrypts becomes current. Nothing is applied: the caller commits
    /// ``PendingDecryption/effects`` after checking the envelope.
    /// - Throws: when no state decrypts, the current state's error:
    ///   ``ProtocolError/badTag``, ``ProtocolError/tooFarAhead(jump:limit:)``,
    ///   ``ProtocolError/tooOld``, ``ProtocolError/malformed(_:reason:)``,
    ///   ``ProtocolError/allZeroSharedSecret``, ``ProtocolError/limitExceeded(_:limit:actual:)``.
    public func decrypt(_ message: NormalMessage, using random: some RandomSource = SystemRandom()) throws -> PendingDecryption {
        var firstError: (any Error)?
        for (index, state) in allStates.enumerated() {
            do {
                let (updated, plaintext) = try state.decrypting(message, using: random)
                return PendingDecryption(plaintext: plaintext, effects: SessionEffects(record: promoting(index: index, to: updated)))
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? ProtocolError.unknownSession
    }

    /// Public facts only.
    public var description: String { "SessionRecord(current: \(current), archived: \(archived.count))" }
}
