import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The primary's rules for one transfer (docs/spec/protocol.md §11.4), over its stored state:
/// one index space (manifest 1 at 0, phase-1 chunks at 1…c₁, manifest 2 at c₁ + 1, phase-2
/// chunks after), at most 16 messages beyond the highest acknowledgement, acknowledgements
/// counted only up to what was sent; the window resent on a repeated acknowledgement (at most
/// once a minute), only the acknowledged message on a timeout (60 s doubling to 1 h); 24 hours
/// without progress or 7 days in all fail it. No I/O: the caller sends and stores.
struct TransferSendMachine: Sendable {
    /// What an input asks the caller to do.
    struct Actions: Sendable, Equatable {
        /// Indexes to send for the first time, in order.
        var send: [UInt32] = []
        /// Indexes whose stored envelopes are posted again, in order.
        var resend: [UInt32] = []
        /// Phase 2 is to be fixed now (every phase-1 message acknowledged).
        var fixPhase2 = false
        /// The last message was acknowledged: the transfer is done.
        var complete = false
        /// The transfer failed, for this reason.
        var failure: String?
    }

    private(set) var state: OutgoingTransferState
    /// Manifest 1's chunk count (c₁).
    let phase1Chunks: UInt32
    /// Manifest 2's chunk count, once fixed.
    private(set) var phase2Chunks: UInt32?

    /// The machine over `state`, whose manifests are `manifest1` and (once fixed) `manifest2`.
    init(state: OutgoingTransferState, manifest1: TransferManifest, manifest2: TransferManifest?) {
        self.state = state
        self.phase1Chunks = manifest1.chunkCount
        self.phase2Chunks = manifest2?.chunkCount
    }

    /// The index of manifest 2.
    var manifest2Index: UInt32 { phase1Chunks + 1 }

    /// How many messages the transfer has, once phase 2 is fixed.
    var total: UInt32? { phase2Chunks.map { phase1Chunks + 2 + $0 } }

    /// Every index below this may be sent now: through phase 1 until phase 2 is fixed.
    var sendable: UInt32 { total ?? (phase1Chunks + 1) }

    /// The first messages, or after a restart what the window still allows.
    func due() -> [UInt32] {
        let end = min(sendable, state.highestAck + TransferTiming.window)
        guard end > state.sentUpTo else { return [] }
        return Array(state.sentUpTo..<end)
    }

    /// Phase 2 is fixed with `manifest2` (its link plaintext's bytes `encoded`): what may go now.
    mutating func phase2Fixed(_ manifest2: TransferManifest, encoded: [UInt8]) -> [UInt32] {
        phase2Chunks = manifest2.chunkCount
        state.manifest2 = encoded
        return due()
    }

    /// `ack(next)` arrived at `now` (µs).
    mutating func acknowledged(_ next: UInt32, now: Int64) -> Actions {
        var actions = Actions()
        let counted = min(next, state.sentUpTo)
        if counted > state.highestAck {
            state.highestAck = counted
            state.progressAt = now
            state.timeoutSeconds = TransferTiming.firstWait
            armTimeout(now: now)
            if phase2Chunks == nil, counted == manifest2Index { actions.fixPhase2 = true }
            if let total, counted >= total {
                actions.complete = true
                return actions
            }
        } else if counted == state.highestAck, counted < state.sentUpTo {
            // A repeated acknowledgement: the new device misses the message at it; the window again.
            if state.windowResentAt.map({ now - $0 >= TransferTiming.repeatSpacing * TransferTiming.microsecond }) ?? true {
                state.windowResentAt = now
                actions.resend = Array(state.highestAck..<state.sentUpTo)
            }
        }
        actions.send = due()
        return actions
    }

    /// The timers at `now` (µs): a stall or the total limit fails the transfer; a timeout
    /// resends the message at the highest acknowledgement and doubles the next one.
    mutating func tick(now: Int64) -> Actions {
        var actions = Actions()
        let second = TransferTiming.microsecond
        if now - state.startedAt > TransferTiming.totalLimit * second {
            actions.failure = "the transfer took over 7 days"
        } else if now - state.progressAt > TransferTiming.stallLimit * second {
            actions.failure = "24 hours without progress"
        } else if now >= state.timeoutAt, state.highestAck < state.sentUpTo {
            actions.resend = [state.highestAck]
            state.timeoutSeconds = TransferTiming.doubled(state.timeoutSeconds)
            armTimeout(now: now)
        }
        return actions
    }

    /// Records that `index` was sent for the first time at `now`; the first send arms the timeout.
    mutating func sent(_ index: UInt32, now: Int64) {
        if state.sentUpTo == state.highestAck { armTimeout(now: now) }
        state.sentUpTo = max(state.sentUpTo, index + 1)
    }

    /// Marks the transfer ended with `status`.
    mutating func end(_ status: TransferStatus, failure: String? = nil) {
        state.status = status
        state.failure = failure
    }

    private mutating func armTimeout(now: Int64) {
        state.timeoutAt = now + state.timeoutSeconds * TransferTiming.microsecond
    }
}
