import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// On the primary, once `device` acknowledged its grant: sends the trust part of the
    /// transfer `transferID` in its channel (docs/spec/protocol.md §11.1–§11.4), in the
    /// background until the last acknowledgement, then deletes the channel. Ends with the
    /// account (a restart does not resume it yet).
    func startTrustTransfer(to device: DeviceID, transferID: WireUUID, channelID: ChannelID) {
        let messages = linkMessages()
        backgroundWork.run { [weak self] in
            await self?.sendTrust(to: device, transferID: transferID, channelID: channelID, messages: messages)
        }
    }

    /// On a new device that took a grant: receives and imports the trust part from `primary`
    /// (§11.4–§11.5). `messages` is subscribed before the grant's `ack(0)` leaves, so nothing
    /// the primary answers is missed.
    func startTrustReceiving(from primary: DeviceID, transferID: WireUUID, channelID: ChannelID, userKey: [UInt8],
                             messages: AsyncStream<OpenedLinkMessage>) {
        backgroundWork.run { [weak self] in
            await self?.receiveTrust(from: primary, transferID: transferID, channelID: channelID, userKey: userKey, messages: messages)
        }
    }

    private func sendTrust(to device: DeviceID, transferID: WireUUID, channelID: ChannelID, messages: AsyncStream<OpenedLinkMessage>) async {
        guard let snapshot = try? await store.trustSnapshot() else { return }
        // Our own devices this primary keeps travel with the certificate its file logged for them
        // (the store's snapshot knows only what listings verified, and ours are not judged there).
        let kept = await primaryIssuer.keptCertificates()
        let records = snapshot.records.map { record -> TrustRecord in
            guard case .deviceWithoutCertificate(let user, let id, let identity, _) = record, user.text == userID.rawValue,
                  let logged = kept[id.text], logged.identity == identity else { return record }
            return .ownDevice(deviceID: id, identity: identity, certificate: logged.certificate)
        }
        guard var sender = try? TrustTransferSender(transferID: transferID, channelID: channelID, newDevice: device, records: records) else { return }
        for plaintext in sender.acknowledged(0) { _ = try? await sendLinkMessage(plaintext, to: device, in: channelID) }
        for await message in messages {
            guard message.channel == .transfer, message.channelID == channelID, message.senderDeviceID == device,
                  case .ack(let id, let next) = message.plaintext, id == transferID else { continue }
            for plaintext in sender.acknowledged(next) { _ = try? await sendLinkMessage(plaintext, to: device, in: channelID) }
            if sender.isComplete(next) {
                try? await api.deleteChannel(id: channelID)
                broadcaster.publish(.linking(.trustSent(to: device)))
                return
            }
        }
    }

    private func receiveTrust(from primary: DeviceID, transferID: WireUUID, channelID: ChannelID, userKey: [UInt8],
                              messages: AsyncStream<OpenedLinkMessage>) async {
        var receiver = TrustTransferReceiver(transferID: transferID)
        var report: TrustImportReport?
        for await message in messages {
            guard message.channel == .transfer, message.channelID == channelID, message.senderDeviceID == primary else { continue }
            switch receiver.receive(message.plaintext) {
            case .none:
                continue
            case .acknowledge(let next):
                _ = try? await sendLinkMessage(.ack(transferID: transferID, nextIndex: next), to: primary, in: channelID)
            case .importTrust(let records, let next):
                do {
                    report = try await store.importTrust(records, from: primary.rawValue, ownUserKey: userKey, now: configuration.userKeyClock())
                    await directory.invalidate()
                } catch {
                    broadcaster.publish(.linking(.transferFailed(reason: "the import did not commit")))
                    return
                }
                _ = try? await sendLinkMessage(.ack(transferID: transferID, nextIndex: next), to: primary, in: channelID)
            case .done(let next):
                // Reported once the last acknowledgement is queued: an app (or the tool) that
                // stops at the news still sends it.
                _ = try? await sendLinkMessage(.ack(transferID: transferID, nextIndex: next), to: primary, in: channelID)
                let imported = report ?? TrustImportReport()
                broadcaster.publish(.linking(.trustTransferred(applied: imported.applied, conflicts: imported.conflicts.count,
                                                               skipped: imported.skipped.count)))
                return
            case .failed(let reason):
                broadcaster.publish(.linking(.transferFailed(reason: reason)))
                return
            }
        }
    }
}
