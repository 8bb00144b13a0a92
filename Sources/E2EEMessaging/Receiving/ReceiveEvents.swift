@_spi(StoreInternals) import E2EEKeyStore

/// The events a committed step tells the app (published only after its commit).
enum ReceiveEvents {
    /// Every new timeline row gives `.inserted`, followed by `.pending` or `.undecryptable` when
    /// it is not readable; a pending row that becomes readable gives `.decrypted` (or
    /// `.undecryptable`); an accepted edit `.edited`. Control rows and duplicates give no
    /// timeline event; refused edits and refused key distributions give `.inputRefused`. A
    /// tombstone gives `.deleted` (or, untrusted, `.removedFromServer`) for the message it
    /// names; an announcement that prompts or was applied gives `.announcement`.
    static func events(for step: ProcessingStep, result: ReceiveWriteResult) -> [AccountEvent] {
        guard result != .unchanged else { return [] }
        var events: [AccountEvent] = []
        // Announced only when this commit pinned the device: the §2.9 check's device-list read
        // usually pinned (and announced) it first, and a device is news once.
        if result == .storedWithNewPin, let pin = step.newPin { events.append(.identity(.newDevice(userID: pin.userID, deviceID: pin.deviceID))) }
        if result == .storedWithNewIdentityChange, let claim = step.write?.identityChange {
            events.append(.identity(.identityChanged(userID: UserID(stored: claim.userID), deviceID: DeviceID(stored: claim.deviceID))))
        }
        if case .duplicateOfPayload = result { return events }
        let id = step.outcome.messageID
        func timeline(_ kind: TimelineChange.Kind) -> AccountEvent { .timeline([TimelineChange(channelID: step.channelID, messageID: id, kind: kind)]) }
        switch result {
        case .storedErasing(let erased):
            return events + [.timeline([TimelineChange(channelID: step.channelID, messageID: MessageID(stored: erased), kind: .deleted)])]
        case .storedMarkingRemoved(let marked):
            return events + [.timeline([TimelineChange(channelID: step.channelID, messageID: MessageID(stored: marked), kind: .removedFromServer)])]
        case .storedApplyingAnnouncement(let devices):
            guard let announcement = announcement(of: step, devices: devices, appliedHere: true) else { return events }
            return events + [.announcement(announcement)]
        case .storedAnnouncementFromOther(let devices):
            guard let announcement = announcement(of: step, devices: devices, appliedHere: false) else { return events }
            return events + [.announcement(announcement)]
        case .storedErased:
            return events + [timeline(step.isNewRow ? .inserted : .decrypted), timeline(.deleted)]
        case .stored, .storedWithNewIdentityChange, .storedWithNewPin, .duplicateOfPayload, .unchanged:
            break
        }
        let reason: UndecryptableReason?
        switch step.outcome.result {
        case .undecryptable(let why): reason = why
        case .unsupportedFormat: reason = .unsupportedFormat
        default: reason = nil
        }
        if case .decrypted = step.outcome.result, !step.isNewRow, step.write?.facts.kind == .control {
            // A pending row that turned out to be a tombstone or an announcement: it leaves the
            // timeline (the app re-reads it and finds no item).
            events.append(timeline(.decrypted))
        }
        guard step.isTimelineRow else {
            if reason == .notAParticipant {
                events.append(.inputRefused(reason: "DM message from a user who is not a participant refused"))
            } else if let reason {
                events.append(.inputRefused(reason: "sender key distribution refused: \(reason.rawValue)"))
            }
            return events
        }
        switch step.outcome.result {
        case .decrypted, .unencrypted:
            events.append(timeline(step.isNewRow ? .inserted : .decrypted))
        case .pending:
            if step.isNewRow { events.append(contentsOf: [timeline(.inserted), timeline(.pending)]) }
        case .undecryptable, .unsupportedFormat:
            if step.isNewRow { events.append(timeline(.inserted)) }
            events.append(timeline(.undecryptable(reason: reason ?? .other)))
        case .edited:
            events.append(timeline(.edited))
        case .editRefused(let why):
            events.append(.inputRefused(reason: "edit refused: \(why.rawValue)"))
        case .keyDistribution, .linkMessage, .duplicate, .own, .ignored, .refused:
            break
        }
        return events
    }

    /// The announcement a step decrypted, for the app; `devices` are the ids the commit found
    /// to name devices here.
    private static func announcement(of step: ProcessingStep, devices: Set<String>, appliedHere: Bool) -> ChannelAnnouncement? {
        guard let payload = step.write?.facts.announcement, let sender = step.sender,
              let kind = ChannelAnnouncement.Kind(rawValue: payload.kind.rawValue) else { return nil }
        let named: [ChannelAnnouncement.Party] = payload.ids.map(\.text).map {
            devices.contains($0) ? .device(DeviceID(stored: $0)) : .user(UserID(stored: $0))
        }
        return ChannelAnnouncement(channelID: step.channelID, messageID: step.outcome.messageID, senderUserID: sender.userID,
                                   senderDeviceID: sender.deviceID, kind: kind, named: named, appliedHere: appliedHere)
    }
}
