import E2EECrypto
import Synchronization
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// On the primary: sends the trust part again to `deviceID`, a device this primary keeps
    /// (docs/spec/protocol.md §11.6): a running transfer to it is cancelled, a new grant — the
    /// device's newest logged certificate, a new transfer id and a new transfer channel — goes
    /// in the devices channel, and on the device's `ack(0)` a new transfer starts from a new
    /// snapshot, carrying the history `history` covers (§11.7). Returns the new transfer's id. The wait for the `ack(0)` lives with the account:
    /// after a restart the user retries again.
    /// - Throws: ``MessagingError/notPrimary``, ``MessagingError/unknownRecipient(deviceID:)`` for a
    ///   device this primary does not keep, ``ServerError``, key store errors.
    @discardableResult
    public func retryTransfer(to deviceID: DeviceID, history: HistoryScope = .default) async throws -> String {
        guard try await primaryIssuer.loadRecord()?.role == .primary else { throw MessagingError.notPrimary }
        guard let kept = await primaryIssuer.keptCertificates()[deviceID.rawValue] else {
            throw MessagingError.unknownRecipient(deviceID: deviceID)
        }
        for running in try await store.outgoingTransfers() where running.deviceID == deviceID.rawValue && running.status == .running {
            try? await cancelTransfer(running.transferID)
        }
        guard let devices = try await devicesChannel(create: true) else { throw MessagingError.notPrimary }
        let channel = try await createTransferChannel()
        let transferID = WireUUID.random(using: SystemRandom())
        let grant = try LinkGrant(requestID: WireUUID.random(using: SystemRandom()), certificate: kept.certificate, transferID: transferID,
                                  transferChannelID: try WireUUID(text: channel.rawValue))
        let acks = linkMessages()
        let posted = try await sendLinkMessage(.grant(grant), to: deviceID, in: devices)
        backgroundWork.run { [weak self] in
            await self?.awaitRetryAck(from: deviceID, transferID: transferID, channelID: channel, grantEnvelope: posted.content,
                                      devicesChannel: devices, history: history, messages: acks)
        }
        return transferID.text
    }

    /// Waits for the `ack(0)` of a retried grant — resending the grant's stored envelope each
    /// minute, for at most 15 minutes — then starts the transfer.
    private func awaitRetryAck(from device: DeviceID, transferID: WireUUID, channelID: ChannelID, grantEnvelope: String,
                               devicesChannel: ChannelID, history: HistoryScope, messages: AsyncStream<OpenedLinkMessage>) async {
        let inputs = TransferInputs(messages: messages)
        let started = configuration.now().microseconds
        var resentAt = started
        let minute = TransferTiming.firstWait * TransferTiming.microsecond
        for await input in inputs.stream {
            switch input {
            case .tick:
                let now = configuration.now().microseconds
                if now - started > 15 * minute {
                    inputs.stop()
                    try? await api.deleteChannel(id: channelID)
                    broadcaster.publish(.linking(.transferFailed(reason: "the device did not confirm the retried transfer")))
                    return
                }
                if now - resentAt >= minute {
                    resentAt = now
                    try? await resendLinkEnvelope(grantEnvelope, in: devicesChannel)
                }
            case .message(let message):
                guard message.channel == .transfer, message.channelID == channelID, message.senderDeviceID == device,
                      case .ack(let id, 0) = message.plaintext, id == transferID else { continue }
                inputs.stop()
                startTrustTransfer(to: device, transferID: transferID, channelID: channelID, history: history)
                return
            }
        }
    }

    /// On a linked device: takes a grant from its recorded primary at any time (§11.6) — one for
    /// its own device, current certificate under its pinned key — and receives that transfer,
    /// acknowledging it with `ack(0)` in its channel. Started once per account.
    func listenForRetriedGrants() {
        guard RetriedGrantListeners.claim(self) else { return }
        let messages = linkMessages()
        backgroundWork.run { [weak self] in
            for await message in messages {
                guard let self else { return }
                guard message.channel == .devices, case .grant(let grant) = message.plaintext else { continue }
                await self.takeRetriedGrant(grant, from: message.senderDeviceID)
            }
        }
    }

    private func takeRetriedGrant(_ grant: LinkGrant, from sender: DeviceID) async {
        guard let record = try? await primaryIssuer.loadRecord(), record.role == .linked, record.primaryDeviceID == sender.rawValue,
              let pinned = record.userKey, grant.certificate.userKey.rawRepresentation == pinned,
              let user = try? WireUUID(text: userID.rawValue), let device = try? WireUUID(text: deviceID.rawValue),
              grant.certificate.verifies(userID: user, deviceID: device, identity: identity),
              let incoming = try? await store.incomingTransfers(), !incoming.contains(where: { $0.transferID == grant.transferID.text }) else { return }
        let channel = ChannelID(grant.transferChannelID.text)
        _ = try? await refreshAllChannels()
        startTrustReceiving(from: sender, transferID: grant.transferID, channelID: channel, userKey: pinned, messages: linkMessages())
        _ = try? await sendLinkMessage(.ack(transferID: grant.transferID, nextIndex: 0), to: sender, in: channel)
    }
}

/// The accounts whose retried-grant listener runs (one each, while the account lives).
enum RetriedGrantListeners {
    private final class Entry: @unchecked Sendable {
        weak var account: Account?
        init(_ account: Account) { self.account = account }
    }

    private static let running = Mutex<[ObjectIdentifier: Entry]>([:])

    /// `true` the first time for `account` (an entry whose account is gone is replaced).
    static func claim(_ account: Account) -> Bool {
        running.withLock { entries in
            entries = entries.filter { $0.value.account != nil }
            let id = ObjectIdentifier(account)
            if entries[id]?.account === account { return false }
            entries[id] = Entry(account)
            return true
        }
    }
}
