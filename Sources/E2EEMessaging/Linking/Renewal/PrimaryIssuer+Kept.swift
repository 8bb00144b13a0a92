import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// A `recert` the primary is to send one kept device (docs/spec/protocol.md §10.13): the
/// device's newest logged certificate and the primary's signature for (this device, it).
struct RecertOrder: Sendable, Equatable {
    /// Why it goes out.
    enum Reason: Sendable, Equatable {
        /// The certificate was just issued (and logged).
        case issued
        /// The certificate is current but the device's listed record does not carry it yet:
        /// its stored envelope is posted again, at most daily.
        case unlisted
    }

    /// The kept device.
    let deviceID: WireUUID
    /// The certificate it is to adopt.
    let certificate: DeviceCertificate
    /// The link plaintext (`cert ‖ primary_sig`).
    let plaintext: LinkPlaintext
    /// Why it goes out.
    let reason: Reason
}

extension PrimaryIssuer {
    /// Runs §10.13 for every device the file keeps besides this one: each one's newest logged
    /// certificate that is not current, below the file's epoch, or listed with under 23 days
    /// left is replaced by a new one — all logged in one save of the file (and the store's
    /// mirror following) before anything leaves; one current but not listed yet is sent again.
    /// Nothing is issued while issuing stopped or the clock holds it (§10.19), nor while a
    /// removal is in progress (its own recerts come first). Returns the recerts to send.
    /// - Throws: ``MessagingError/primaryFileUnprotected``, ``PrimaryFileError``, key store errors.
    func renewKept() async throws -> [RecertOrder] {
        guard var record = try await loadRecord(), record.role == .primary, record.issuingStopped == nil else { return [] }
        guard let keychain, let file, file.exists, let key = try keychain.key(item: item, create: false) else { return [] }
        var contents = try file.load(key: key)
        guard contents.removal == nil else { return [] }
        let others = contents.kept.filter { $0 != device.deviceID.rawValue }
        guard !others.isEmpty else { return [] }
        let (clock, _) = try await advanceClock()
        let listing = await ownListedCertificates()
        let ourKey = try contents.userKey().publicKey.rawRepresentation
        var orders: [RecertOrder] = []
        var issued = false
        for deviceID in others {
            // A kept device whose record carries a certificate under another key (a stolen device
            // certified by its thief, §10.12): surfaced for the user to remove; issuing goes on.
            if let other = listing?[deviceID]?.verified, other.userKey.rawRepresentation != ourKey {
                events.publish(.linking(.keptDeviceUnderAnotherKey(DeviceID(deviceID))))
            }
            guard let newest = contents.newestEntry(for: deviceID), let body = newest.body,
                  let identity = try? IdentityBlob(bytes: body.identityBlob), let party = try? WireUUID(text: deviceID) else { continue }
            let input = RenewalRule.Input(clock: clock, fileEpoch: contents.epoch, newest: .init(epoch: newest.epoch, notAfter: newest.notAfter),
                                          listed: listing.map { $0[deviceID]?.bytes == body.certificate }, stopped: nil)
            switch RenewalRule.decide(input) {
            case .upToDate, .held:
                continue
            case .republish:
                guard let certificate = try? DeviceCertificate(bytes: body.certificate) else { continue }
                orders.append(try recert(certificate, to: party, contents: contents, reason: .unlisted))
            case .issue:
                guard file.isProtected || (try? file.protect()) != nil else { throw MessagingError.primaryFileUnprotected }
                let certificate = try issue(to: party, identity: identity, into: &contents, now: clock.now)
                orders.append(try recert(certificate, to: party, contents: contents, reason: .issued))
                issued = true
            }
        }
        if issued {
            contents.prune(at: max(clock.now, clock.readings.mark, contents.mark))
            try save(contents, to: file, key: key)
            record.logCount = contents.logCount
            let mirror = record
            try await store.write { [store] db in try store.ownUserKeyStore.store(mirror, db) }
        }
        return orders
    }

    /// Issues `party` (a device of our user with `identity`) a certificate at the file's epoch,
    /// valid 30 days from `now`, and logs it (the caller saves the file).
    func issue(to party: WireUUID, identity: IdentityBlob, into contents: inout PrimaryFileContents, now: Int64) throws -> DeviceCertificate {
        let certificate = try DeviceCertificate.issue(by: contents.userKey(), userID: WireUUID(text: device.userID.rawValue), deviceID: party,
                                                      identity: identity, epoch: contents.epoch,
                                                      notAfter: UInt32(clamping: now + RenewalRule.lifetime))
        contents.append(CertificateLogEntry(deviceID: party.text, identityBlob: identity.bytes, certificate: certificate))
        contents.mark = max(contents.mark, now)
        return certificate
    }

    /// The recert of `certificate` to `party`, signed as this primary for it.
    func recert(_ certificate: DeviceCertificate, to party: WireUUID, contents: PrimaryFileContents, reason: RecertOrder.Reason) throws -> RecertOrder {
        let signature = PrimarySignature.sign(by: try contents.userKey(), userID: try WireUUID(text: device.userID.rawValue),
                                              senderDevice: try WireUUID(text: device.deviceID.rawValue), recipientDevice: party,
                                              epoch: certificate.epoch, notAfter: certificate.notAfter)
        return RecertOrder(deviceID: party, certificate: certificate, plaintext: .recert(certificate: certificate, primarySignature: signature),
                           reason: reason)
    }

    /// What each device of our user lists, by device id (lower-case text): its record's
    /// certificate bytes, and the certificate when it verifies for that device under any key.
    /// `nil` when the listing cannot be read.
    func ownListedCertificates() async -> [String: (bytes: [UInt8], verified: DeviceCertificate?)]? {
        guard let bundles = try? await api.bundles(userID: device.userID), let user = try? WireUUID(text: device.userID.rawValue) else { return nil }
        var listed: [String: (bytes: [UInt8], verified: DeviceCertificate?)] = [:]
        for json in bundles {
            guard let bundle = try? PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                                 signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey) else { continue }
            listed[json.deviceID.rawValue.lowercased()] = (bundle.certificate.bytes, bundle.verifiedCertificate(forUser: user))
        }
        return listed
    }
}
