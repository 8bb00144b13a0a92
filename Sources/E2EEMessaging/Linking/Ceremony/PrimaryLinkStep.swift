import E2EECrypto

/// The primary's side of "link a device" (docs/spec/protocol.md §10.11 steps 2, 3 and 5), as a
/// pure machine: the driver feeds it what opened for the first time over the devices channel
/// (already authenticated as coming from an own device, §10.10), what the user typed and the
/// passing of time; it answers with ``LinkCeremonyAction``s.
///
/// - While open it answers the first request that was posted after the opening, once; a second
///   request, from any device, closes the step with a cancel to each requester, so two devices
///   asking at once (or a device the server made, racing the user's) get nothing.
/// - The reveal must open the commitment of the request; only then are the codes derived.
/// - A wrong code, the user's refusal, anything of this request out of order and ten minutes
///   without progress close the step, with a cancel to the requester.
/// - On the right code it shows its own code and asks the driver to grant; the grant's fate
///   (resends, confirmation, expiry) is ``GrantLedger``'s.
///
/// `now` is any clock that only moves forward (the driver's monotonic reading): the machine
/// measures the ten minutes with it and nothing else.
struct PrimaryLinkStep: Sendable {
    /// What reaches the step.
    enum Input: Sendable {
        /// A `request` from an own device; `afterOpening` when it was posted after the step opened.
        case request(from: LinkParty, requestID: WireUUID, commit: [UInt8], afterOpening: Bool)
        /// A `reveal` from an own device.
        case reveal(from: WireUUID, requestID: WireUUID, nonce: SecretBytes)
        /// A `cancel` from an own device.
        case cancel(from: WireUUID, id: WireUUID, reason: LinkCancelReason)
        /// The user typed the new device's code.
        case codeEntered(String)
        /// The user closed the step.
        case userCancelled
        /// Time passed.
        case tick
    }

    /// Where the step is.
    enum Phase: Sendable, Equatable {
        /// Open, no request answered yet.
        case open
        /// A request answered with `accept`; waiting for its reveal.
        case answered
        /// The codes are known; waiting for the user to type the new device's.
        case enteringCode
        /// The code matched; the driver grants.
        case granted
        /// Closed for good by this reason.
        case cancelled(LinkCancelReason)
    }

    /// The device whose request was answered, with what the exchange fixed.
    private struct Requester: Sendable {
        let party: LinkParty
        let requestID: WireUUID
        let commit: [UInt8]
        let nonce: SecretBytes
        var codes: LinkCodes?
    }

    private let me: LinkSelf
    private var requester: Requester?
    private var lastProgress: Int64
    /// Where the step is.
    private(set) var phase: Phase = .open

    /// Opens the step at `now`.
    static func open(by me: LinkSelf, now: Int64) -> (PrimaryLinkStep, [LinkCeremonyAction]) {
        (PrimaryLinkStep(me: me, lastProgress: now), [.show(.waiting)])
    }

    private init(me: LinkSelf, lastProgress: Int64) {
        self.me = me
        self.lastProgress = lastProgress
    }

    /// Whether the step can still move (not granted, not cancelled).
    var isOpen: Bool {
        switch phase {
        case .open, .answered, .enteringCode: true
        case .granted, .cancelled: false
        }
    }

    /// Applies one input at `now` and returns what the driver must do.
    mutating func handle(_ input: Input, now: Int64) -> [LinkCeremonyAction] {
        guard isOpen else { return [] }
        switch input {
        case .request(let from, let requestID, let commit, let afterOpening):
            return received(request: from, requestID: requestID, commit: commit, afterOpening: afterOpening, now: now)
        case .reveal(let from, let requestID, let nonce):
            return received(revealFrom: from, requestID: requestID, nonce: nonce, now: now)
        case .cancel(let from, let id, let reason):
            guard let requester, requester.party.deviceID == from, requester.requestID == id else { return [] }
            return close(reason, notify: false)
        case .codeEntered(let typed):
            return entered(typed)
        case .userCancelled:
            return close(.refusedByUser, notify: true)
        case .tick:
            return now - lastProgress >= LinkSelf.idleLimit ? close(.expired, notify: true) : []
        }
    }

    private mutating func received(request from: LinkParty, requestID: WireUUID, commit: [UInt8], afterOpening: Bool,
                                   now: Int64) -> [LinkCeremonyAction] {
        guard let requester else {
            guard afterOpening, phase == .open else { return [] }
            let nonce = me.makeNonce()
            self.requester = Requester(party: from, requestID: requestID, commit: commit, nonce: nonce, codes: nil)
            phase = .answered
            lastProgress = now
            return [.send(.accept(requestID: requestID, nonce: nonce), to: from.deviceID), .show(.requestReceived(DeviceID(from.deviceID.text)))]
        }
        if requester.party == from, requester.requestID == requestID, requester.commit == commit { return [] }
        // The same device asking again before any code was typed began a new attempt (§10.21
        // decision 17): its earlier request was stale — posted to this device while it asked
        // another primary, or before a restart — and the new one is answered instead. Only that
        // device can send it (it comes over its own ratchet), so no other device gains from it.
        if requester.party == from, phase == .answered || phase == .enteringCode {
            let nonce = me.makeNonce()
            self.requester = Requester(party: from, requestID: requestID, commit: commit, nonce: nonce, codes: nil)
            phase = .answered
            lastProgress = now
            return [.send(.accept(requestID: requestID, nonce: nonce), to: from.deviceID)]
        }
        // A second request while one is answered: two devices at once, or one racing the user's.
        var actions = close(.superseded, notify: true)
        if from.deviceID != requester.party.deviceID {
            actions.insert(.send(.cancel(id: requestID, reason: .superseded), to: from.deviceID), at: 0)
        }
        return actions
    }

    private mutating func received(revealFrom from: WireUUID, requestID: WireUUID, nonce: SecretBytes, now: Int64) -> [LinkCeremonyAction] {
        guard var requester, requester.party.deviceID == from, requester.requestID == requestID else { return [] }
        guard phase == .answered else { return close(.outOfOrder, notify: true) }
        guard LinkCommitment.verifies(requester.commit, nonce: nonce),
              let codes = try? LinkCodes.derive(newDeviceNonce: nonce, primaryNonce: requester.nonce, userID: me.userID,
                                                primaryDevice: me.device.deviceID, primaryIdentity: me.device.identity,
                                                newDevice: requester.party.deviceID, newIdentity: requester.party.identity)
        else { return close(.codeMismatch, notify: true) }
        requester.codes = codes
        self.requester = requester
        phase = .enteringCode
        lastProgress = now
        return [.show(.enterCode)]
    }

    private mutating func entered(_ typed: String) -> [LinkCeremonyAction] {
        guard phase == .enteringCode, let requester, let codes = requester.codes else { return [] }
        guard LinkCodes.matches(typed: typed, expected: codes.newDeviceCode) else { return close(.codeMismatch, notify: true) }
        phase = .granted
        return [.show(.showCode(codes.primaryCode)), .grant(to: requester.party, requestID: requester.requestID),
                .show(.granted(DeviceID(requester.party.deviceID.text)))]
    }

    /// Closes the step for `reason`, telling the requester when `notify` (not when it cancelled).
    private mutating func close(_ reason: LinkCancelReason, notify: Bool) -> [LinkCeremonyAction] {
        phase = .cancelled(reason)
        var actions: [LinkCeremonyAction] = []
        if notify, let requester {
            actions.append(.send(.cancel(id: requester.requestID, reason: reason), to: requester.party.deviceID))
        }
        actions.append(.show(.cancelled(reason)))
        return actions
    }
}
