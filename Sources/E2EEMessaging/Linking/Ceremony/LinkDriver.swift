import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

/// Runs one end of a link (docs/spec/protocol.md §10.11): feeds the pure machine
/// (``PrimaryLinkStep`` or ``NewDeviceLinkAttempt``) what the account opens in its link channels
/// (``Account/linkMessages()``), what the user types and the time, and carries out what it
/// answers — link messages through the outbox, steps to the app, the grant's certificate from
/// the primary file, the new device's adoption. The ten idle minutes run on a monotonic clock;
/// the attempt lives in memory (a restart ends it: the user starts again on both devices).
actor LinkDriver {
    /// The machine this end runs.
    enum Machine: Sendable {
        case primary(PrimaryLinkStep)
        case newDevice(NewDeviceLinkAttempt)
    }

    /// What the driver needs of the account.
    struct Context: Sendable {
        let account: Account
        let store: KeyStore
        let issuer: PrimaryIssuer
        let ownUserID: UserID
        let devicesChannel: ChannelID
        /// The system clock of §10.19, unix seconds (certificate currency).
        let systemSeconds: @Sendable () -> Int64
        /// Seconds added to the idle clock (a test's moved clock; 0 in release builds).
        let idleShift: @Sendable () -> Int64
        /// On the primary, the history a device it links receives (§11.7).
        let history: HistoryScope
    }

    private var machine: Machine
    private let context: Context
    private let continuation: AsyncStream<LinkStep>.Continuation
    private let started = ContinuousClock.now
    /// When the primary's step opened, unix seconds of the server's dating (§10.11 step 2).
    private let openedAt: Int64
    private var ledger = GrantLedger()
    /// Per transfer granted here, its channel (for the trust part that follows the keep).
    private var transferChannels: [WireUUID: ChannelID] = [:]
    /// Per transfer granted here, the grant's envelope as posted (what a resend posts again).
    private var grantEnvelopes: [WireUUID: String] = [:]
    private var tasks: [Task<Void, Never>] = []
    private var finished = false

    /// How long before the opening a request may have been dated and still count (an older one
    /// belongs to an attempt that has expired, §10.21).
    static let requestWindow: Int64 = 600

    init(machine: Machine, context: Context, continuation: AsyncStream<LinkStep>.Continuation, openedAt: Int64) {
        self.machine = machine
        self.context = context
        self.continuation = continuation
        self.openedAt = openedAt
    }

    /// Starts listening (before anything is sent, so no answer is missed) and carries out the
    /// machine's first actions.
    func start(messages: AsyncStream<OpenedLinkMessage>, first actions: [LinkCeremonyAction]) async {
        tasks.append(Task { [weak self] in
            for await message in messages {
                guard let self else { return }
                await self.received(message)
                if await self.isFinished, await !self.awaitsLateConfirmations { return }
            }
        })
        tasks.append(Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                guard let self, await !self.isFinished else { return }
                await self.handle(.tick)
            }
        })
        await perform(actions)
    }

    var isFinished: Bool { finished }

    /// Whether a grant of this primary failed or was cancelled unconfirmed: its device's
    /// confirmation may still arrive, and is surfaced once (`lateConfirmation`) though the
    /// attempt has ended.
    var awaitsLateConfirmations: Bool {
        ledger.grants.contains { grant in
            if case .void(let reason) = grant.state { reason != .removed } else { false }
        }
    }

    /// Whether a certificate ending at `notAfter` is current at `now` for linking: on this
    /// device's clock, with §10.4's ten minutes of grace.
    static func isCurrent(notAfter: UInt32, now: Int64) -> Bool {
        Int64(notAfter) + UserKeyClock.expiryGrace >= now
    }

    func userEntered(code: String) async { await handle(.code(code)) }

    func userCancelled() async { await handle(.cancel) }

    // MARK: Inputs

    private enum Input {
        case tick
        case code(String)
        case cancel
    }

    private var now: Int64 {
        let elapsed = ContinuousClock.now - started
        return elapsed.components.seconds + context.idleShift()
    }

    private func handle(_ input: Input) async {
        switch input {
        case .tick: await drive(primary: .tick, newDevice: .tick)
        case .code(let code): await drive(primary: .codeEntered(code), newDevice: .codeEntered(code))
        case .cancel: await drive(primary: .userCancelled, newDevice: .userCancelled)
        }
        if case .tick = input { await tickLedger() }
    }

    /// Feeds the machine this end runs its input (`nil`: nothing for that machine) and carries
    /// out what it answers. The machine is read and written with no suspension between, so an
    /// input that arrives while another waits (the actor is reentrant) never works on a stale copy.
    private func drive(primary: PrimaryLinkStep.Input?, newDevice: NewDeviceLinkAttempt.Input?) async {
        let actions: [LinkCeremonyAction]
        switch machine {
        case .primary(var step):
            guard let primary else { return }
            actions = step.handle(primary, now: now)
            machine = .primary(step)
        case .newDevice(var attempt):
            guard let newDevice else { return }
            actions = attempt.handle(newDevice, now: now)
            machine = .newDevice(attempt)
        }
        await perform(actions)
    }

    /// A link message the account opened: translated into the machine's input, if it is one.
    private func received(_ message: OpenedLinkMessage) async {
        guard let sender = try? WireUUID(text: message.senderDeviceID.rawValue) else { return }
        switch machine {
        case .primary:
            if message.channel == .transfer, case .ack(let transferID, _) = message.plaintext {
                await apply(ledger.acknowledged(transferID: transferID, from: sender, now: context.systemSeconds()))
                return
            }
            guard message.channel == .devices else { return }
            let input: PrimaryLinkStep.Input
            switch message.plaintext {
            case .request(let requestID, let commit):
                guard let identity = await pinnedIdentity(of: message.senderDeviceID) else { return }
                let afterOpening = message.createdAt.microseconds / 1_000_000 >= openedAt - Self.requestWindow
                input = .request(from: LinkParty(deviceID: sender, identity: identity), requestID: requestID, commit: commit, afterOpening: afterOpening)
            case .reveal(let requestID, let nonce): input = .reveal(from: sender, requestID: requestID, nonce: nonce)
            case .cancel(let id, let reason):
                ledger.cancelled(requestID: id, by: sender)
                input = .cancel(from: sender, id: id, reason: reason)
            default: return
            }
            await drive(primary: input, newDevice: nil)
            // After the grant the step is the ledger's: the granted device's cancel ends it.
            if case .cancel(let id, let reason) = message.plaintext, case .primary(let step) = machine, step.phase == .granted,
               ledger.grants.contains(where: { $0.device == sender && $0.requestID == id && $0.state == .void(.cancelled) }) {
                show(.cancelled(reason))
            }
        case .newDevice:
            guard message.channel == .devices else { return }
            let input: NewDeviceLinkAttempt.Input
            switch message.plaintext {
            case .accept(let requestID, let nonce):
                guard let identity = await pinnedIdentity(of: message.senderDeviceID) else { return }
                input = .accept(from: LinkParty(deviceID: sender, identity: identity), requestID: requestID, nonce: nonce)
            case .grant(let grant):
                let current = Self.isCurrent(notAfter: grant.certificate.notAfter, now: context.systemSeconds())
                input = .grant(from: sender, grant, current: current)
            case .cancel(let id, let reason): input = .cancel(from: sender, id: id, reason: reason)
            default: return
            }
            await drive(primary: nil, newDevice: input)
        }
    }

    /// The identity our store pinned for our own device `deviceID` — the blob the ratchet that
    /// carried its message is bound to (§10.23).
    private func pinnedIdentity(of deviceID: DeviceID) async -> IdentityBlob? {
        let user = context.ownUserID.rawValue
        guard let pinned = try? await context.store.read({ [store = context.store] db in
            try store.remoteIdentityStore.loadIdentity(userID: user, deviceID: deviceID.rawValue, db)
        }) else { return nil }
        return try? IdentityBlob(bytes: pinned.identityBlob)
    }

    // MARK: Actions

    private func perform(_ actions: [LinkCeremonyAction]) async {
        for action in actions {
            switch action {
            case .send(let plaintext, let device):
                _ = try? await context.account.sendLinkMessage(plaintext, to: DeviceID(device.text), in: context.devicesChannel)
            case .show(let step):
                show(step)
            case .grant(let party, let requestID):
                do {
                    try await grant(to: party, requestID: requestID)
                } catch {
                    // The certificate could not be issued (a stop, the clock, the file): the link fails here.
                    _ = try? await context.account.sendLinkMessage(.cancel(id: requestID, reason: .refusedByUser), to: DeviceID(party.deviceID.text),
                                                               in: context.devicesChannel)
                    show(.cancelled(.refusedByUser))
                }
            case .adopt(let grant, let primary):
                await adopt(grant, primary: primary)
            }
        }
    }

    private func show(_ step: LinkStep) {
        guard !finished else { return }
        continuation.yield(step)
        switch step {
        case .linked, .cancelled:
            finished = true
            continuation.finish()
            // The first task listens for link messages: it stays while a failed grant's late
            // confirmation may still come, to surface it.
            for (index, task) in tasks.enumerated() where index > 0 || !awaitsLateConfirmations { task.cancel() }
        default:
            break
        }
    }

    /// The primary's grant: the certificate issued and logged, the transfer channel created,
    /// the grant sent; its fate is the ledger's.
    private func grant(to party: LinkParty, requestID: WireUUID) async throws {
        let certificate = try await context.account.issueGrantCertificate(for: party)
        #if DEBUG
        context.account.configuration.testCrash(at: .grantLogged)
        #endif
        let transferChannel = try await context.account.createTransferChannel()
        let transferID = WireUUID.random(using: SystemRandom())
        let grant = try LinkGrant(requestID: requestID, certificate: certificate, transferID: transferID,
                                  transferChannelID: try WireUUID(text: transferChannel.rawValue))
        let posted = try await context.account.sendLinkMessage(.grant(grant), to: DeviceID(party.deviceID.text), in: context.devicesChannel)
        grantEnvelopes[transferID] = posted.content
        ledger.issued(to: party.deviceID, requestID: requestID, transferID: transferID, certificate: certificate, now: context.systemSeconds())
        transferChannels[transferID] = transferChannel
    }

    /// The new device takes the grant, starts listening for the trust part, then acknowledges
    /// the grant in the transfer channel.
    private func adopt(_ grant: LinkGrant, primary: WireUUID) async {
        do {
            try await context.issuer.adopt(grant, primary: primary)
            let transferChannel = ChannelID(grant.transferChannelID.text)
            _ = try? await context.account.refreshAllChannels()
            await context.account.startTrustReceiving(from: DeviceID(primary.text), transferID: grant.transferID, channelID: transferChannel,
                                                      userKey: grant.certificate.userKey.rawRepresentation,
                                                      messages: context.account.linkMessages())
            try await context.account.sendLinkMessage(.ack(transferID: grant.transferID, nextIndex: 0), to: DeviceID(primary.text), in: transferChannel)
        } catch {
            show(.cancelled(.outOfOrder))
        }
    }

    private func tickLedger() async {
        await apply(ledger.tick(now: context.systemSeconds()))
    }

    private func apply(_ actions: [GrantLedger.Action]) async {
        for action in actions {
            switch action {
            case .keep(let device):
                // Kept: the primary renews it from now on and sends it the trust part; on this end the link is done.
                // A device removed meanwhile is never kept (§10.14): the link failed.
                guard (try? await context.account.keepGrantedDevice(device)) == true else {
                    show(.cancelled(.refusedByUser))
                    continue
                }
                await context.account.trustLinkedOwnDevice(DeviceID(device.text))
                // A device becomes kept: the renewal runs (a grant from before a removal is renewed at the new epoch).
                await context.account.renewKeptDevicesNow()
                if let grant = ledger.grants.last(where: { $0.device == device && $0.state == .confirmed }),
                   let channel = transferChannels[grant.transferID] {
                    await context.account.startTrustTransfer(to: DeviceID(device.text), transferID: grant.transferID, channelID: channel,
                                                             history: context.history)
                }
                show(.linked)
            case .failed:
                show(.cancelled(.expired))
            case .lateConfirmation(let device):
                // The attempt ended before: nothing is kept, the user links the device again.
                context.account.broadcaster.publish(.linking(.lateConfirmation(DeviceID(device.text))))
            case .resend(let transferID):
                if let content = grantEnvelopes[transferID] { try? await context.account.resendLinkEnvelope(content, in: context.devicesChannel) }
            }
        }
    }
}
