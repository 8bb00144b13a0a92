import E2EEKeyStore

/// §10.7 for our own user on an account with a key (docs/spec/protocol.md §10.7, §10.25): the
/// same rule contacts apply to a user they pinned, under the key this device holds for its own
/// user. A device of ours is a recipient only when its listed certificate verifies under our
/// key, is current by this device's clock, and carries the highest epoch seen (ours included,
/// so a device removed at the primary is unlinked wherever the primary's new record is read);
/// or, without a certificate, when it is a legacy own device whose 30 days have not run out.
/// Pure: the caller reads the listing and the store.
struct OwnDeviceRule: Sendable {
    /// What the rule reads.
    struct Input: Sendable {
        /// Our user key (32 bytes), pinned on this device.
        var userKey: [UInt8]
        /// The epoch this device holds: the primary file's, or the one of the certificate this
        /// linked device adopted last, or the highest it saw listed under our key before.
        var storedEpoch: UInt32
        /// Our other devices in the listing, as read (this device is never among them).
        var listing: [ListedCertificate]
        /// Own devices trusted under text 1.2 before the key, with when they lapse.
        var legacy: [LegacyOwnDevice]
        /// This device's clock.
        var clock: UserKeyClock
    }

    /// What the rule decided.
    struct Outcome: Sendable, Equatable {
        /// The own devices that get keys.
        var linked: Set<String> = []
        /// The listed own devices that do not, and why.
        var unlinked: [String: DeviceUnlinkReason] = [:]
        /// The highest epoch seen under our key.
        var highestEpoch: UInt32 = 0
        /// Legacy own devices whose 30 days ran out (listed or not): no longer legacy, surfaced
        /// once as unlinked.
        var lapsed: Set<String> = []
    }

    /// Decides who of our own devices gets keys.
    static func decide(_ input: Input) -> Outcome {
        var outcome = Outcome()
        outcome.highestEpoch = input.listing.reduce(input.storedEpoch) { highest, device in
            guard case .certificate(let key, let epoch, let notAfter) = device.reading, key == input.userKey,
                  Int64(notAfter) <= input.clock.now + UserKeyClock.maximumLifetime else { return highest }
            return max(highest, epoch)
        }
        let lapsesAt = Dictionary(input.legacy.map { ($0.deviceID, $0.lapsesAt) }) { a, _ in a }
        let reading = max(input.clock.now, input.clock.readings.mark)
        outcome.lapsed = Set(input.legacy.filter { reading >= $0.lapsesAt }.map(\.deviceID))
        for device in input.listing {
            switch device.reading {
            case .certificate(let key, let epoch, let notAfter) where key == input.userKey:
                if !input.clock.isCurrent(notAfter: notAfter) {
                    outcome.unlinked[device.deviceID] = .expired
                } else if epoch < outcome.highestEpoch {
                    outcome.unlinked[device.deviceID] = .removed
                } else {
                    outcome.linked.insert(device.deviceID)
                }
            case .certificate:
                outcome.unlinked[device.deviceID] = .replaced
            case .unverified, .refused:
                outcome.unlinked[device.deviceID] = .invalid
            case .none:
                if let lapse = lapsesAt[device.deviceID], reading < lapse {
                    outcome.linked.insert(device.deviceID)
                } else {
                    outcome.unlinked[device.deviceID] = .legacy
                }
            }
        }
        return outcome
    }
}
