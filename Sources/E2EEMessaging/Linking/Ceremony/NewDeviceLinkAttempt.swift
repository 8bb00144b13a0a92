import E2EECrypto

/// The new device's side of a link (docs/spec/protocol.md §10.11 steps 1, 3–5), as a pure
/// machine: the driver feeds it what opened for the first time over the devices channel, what
/// the user typed and the passing of time; it answers with ``LinkCeremonyAction``s.
///
/// - It asks every listed own device with a current certificate, and takes the first `accept`
///   of its request; an accept from a second device cancels (`superseded`): two primaries
///   answering means one of them is not ours to trust.
/// - It reveals its nonce only to the device it took, derives the codes and shows its own.
/// - It takes a grant only from that device, for its request, with a certificate current and
///   signed for this user, this device and this device's identity blob — and only after its user
///   typed the primary's code, which it checks against the code it derived itself.
/// - Anything else of this attempt out of order, a wrong code, the user's refusal and ten
///   minutes without progress cancel, with a `cancel` to the other side.
///
/// Messages that name another request, or come from a device it did not ask, are not this
/// attempt's and change nothing.
struct NewDeviceLinkAttempt: Sendable {
    /// What reaches the attempt.
    enum Input: Sendable {
        /// An `accept` from an own device; `identity` is the blob its ratchet with us is bound to.
        case accept(from: LinkParty, requestID: WireUUID, nonce: SecretBytes)
        /// A `grant` from an own device; `current` when the driver found its certificate current
        /// on this device's clock (§10.19).
        case grant(from: WireUUID, LinkGrant, current: Bool)
        /// A `cancel` from an own device.
        case cancel(from: WireUUID, id: WireUUID, reason: LinkCancelReason)
        /// The user typed the primary's code.
        case codeEntered(String)
        /// The user gave up.
        case userCancelled
        /// Time passed.
        case tick
    }

    /// Where the attempt is.
    enum Phase: Sendable, Equatable {
        /// Requests sent; no accept taken yet.
        case asked
        /// An accept taken and the nonce revealed; waiting for the user's code and the grant.
        case accepted
        /// The grant is taken: linked.
        case linked
        /// Ended for good by this reason.
        case cancelled(LinkCancelReason)
    }

    private let me: LinkSelf
    /// This attempt's request.
    let requestID: WireUUID
    private let nonce: SecretBytes
    private let asked: Set<WireUUID>
    private var primary: LinkParty?
    private var codes: LinkCodes?
    private var grant: LinkGrant?
    private var codeConfirmed = false
    private var lastProgress: Int64
    /// Where the attempt is.
    private(set) var phase: Phase = .asked

    /// Starts an attempt at `now` that asks each of `devices` (the listed own devices with a
    /// current certificate under any key).
    static func start(by me: LinkSelf, asking devices: [WireUUID], now: Int64) -> (NewDeviceLinkAttempt, [LinkCeremonyAction]) {
        let attempt = NewDeviceLinkAttempt(me: me, requestID: me.makeID(), nonce: me.makeNonce(), asked: Set(devices), lastProgress: now)
        let commit = LinkCommitment.commit(to: attempt.nonce)
        let requests = devices.map { LinkCeremonyAction.send(.request(requestID: attempt.requestID, commit: commit), to: $0) }
        return (attempt, requests + [.show(.waiting)])
    }

    private init(me: LinkSelf, requestID: WireUUID, nonce: SecretBytes, asked: Set<WireUUID>, lastProgress: Int64) {
        self.me = me
        self.requestID = requestID
        self.nonce = nonce
        self.asked = asked
        self.lastProgress = lastProgress
    }

    /// The device whose accept was taken, once one was.
    var primaryDevice: WireUUID? { primary?.deviceID }

    /// Applies one input at `now` and returns what the driver must do.
    mutating func handle(_ input: Input, now: Int64) -> [LinkCeremonyAction] {
        switch phase {
        case .linked, .cancelled: return []
        case .asked, .accepted: break
        }
        switch input {
        case .accept(let from, let requestID, let nonce):
            guard asked.contains(from.deviceID), requestID == self.requestID else { return [] }
            return accepted(from: from, primaryNonce: nonce, now: now)
        case .grant(let from, let grant, let current):
            guard from == primary?.deviceID ?? from, asked.contains(from), grant.requestID == requestID else { return [] }
            return granted(grant, current: current, now: now)
        case .cancel(let from, let id, let reason):
            guard asked.contains(from), id == requestID, from == primary?.deviceID ?? from else { return [] }
            phase = .cancelled(reason)
            return [.show(.cancelled(reason))]
        case .codeEntered(let typed):
            return entered(typed, now: now)
        case .userCancelled:
            return cancel(.refusedByUser)
        case .tick:
            return now - lastProgress >= LinkSelf.idleLimit ? cancel(.expired) : []
        }
    }

    private mutating func accepted(from: LinkParty, primaryNonce: SecretBytes, now: Int64) -> [LinkCeremonyAction] {
        if let primary {
            guard primary.deviceID != from.deviceID else { return [] }
            // A second device answered: cancel with both.
            return [.send(.cancel(id: requestID, reason: .superseded), to: from.deviceID)] + cancel(.superseded)
        }
        guard let codes = try? LinkCodes.derive(newDeviceNonce: nonce, primaryNonce: primaryNonce, userID: me.userID,
                                                primaryDevice: from.deviceID, primaryIdentity: from.identity,
                                                newDevice: me.device.deviceID, newIdentity: me.device.identity)
        else { return cancel(.outOfOrder) }
        primary = from
        self.codes = codes
        phase = .accepted
        lastProgress = now
        return [.send(.reveal(requestID: requestID, nonce: nonce), to: from.deviceID), .show(.showCode(codes.newDeviceCode)),
                .show(.enterCode)]
    }

    private mutating func granted(_ grant: LinkGrant, current: Bool, now: Int64) -> [LinkCeremonyAction] {
        if let held = self.grant {
            return held == grant ? [] : cancel(.outOfOrder)
        }
        guard phase == .accepted, current,
              grant.certificate.verifies(userID: me.userID, deviceID: me.device.deviceID, identity: me.device.identity)
        else { return cancel(.outOfOrder) }
        self.grant = grant
        lastProgress = now
        return completeIfReady()
    }

    private mutating func entered(_ typed: String, now: Int64) -> [LinkCeremonyAction] {
        guard phase == .accepted, !codeConfirmed, let codes else { return [] }
        guard LinkCodes.matches(typed: typed, expected: codes.primaryCode) else { return cancel(.codeMismatch) }
        codeConfirmed = true
        lastProgress = now
        return completeIfReady()
    }

    /// Linked once both the user's code and the grant are in.
    private mutating func completeIfReady() -> [LinkCeremonyAction] {
        guard codeConfirmed, let grant, let primary else { return grant == nil ? [] : [.show(.granted(DeviceID(me.device.deviceID.text)))] }
        phase = .linked
        return [.adopt(grant, primary: primary.deviceID), .show(.linked)]
    }

    /// Ends the attempt for `reason`, telling the device it took (or, before one, every device
    /// it asked).
    private mutating func cancel(_ reason: LinkCancelReason) -> [LinkCeremonyAction] {
        phase = .cancelled(reason)
        let told = primary.map { [$0.deviceID] } ?? asked.sorted()
        return told.map { .send(.cancel(id: requestID, reason: reason), to: $0) } + [.show(.cancelled(reason))]
    }
}
