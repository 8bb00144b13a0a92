import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension PrimaryIssuer {
    /// What our own listing shows under keys other than ours (docs/spec/protocol.md §10.15).
    struct AnotherKeyListing: Sendable, Equatable {
        /// The other keys with a current certificate listed, in the order first read.
        var keys: [[UInt8]] = []
        /// The devices carrying one (lower-case text), in listing order.
        var devices: [String] = []
    }

    /// Reads our own listing afresh and collects every device whose record carries a current
    /// certificate of our user, verifying for that device and blob, under a key other than
    /// `ourKey` — a reset made elsewhere, or a device the server made. Current is this device's
    /// clock and mark (§10.19).
    /// - Throws: ``ServerError`` (the listing cannot be read: a take-over needs the server
    ///   anyway), key store errors.
    func anotherKeyListed(ourKey: [UInt8]) async throws -> AnotherKeyListing {
        let (clock, _) = try await advanceClock()
        let bundles = try await api.bundles(userID: device.userID)
        let user = try WireUUID(text: device.userID.rawValue)
        var listing = AnotherKeyListing()
        for json in bundles {
            guard let bundle = try? PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                                 signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey),
                  let verified = bundle.verifiedCertificate(forUser: user), clock.isCurrent(notAfter: verified.notAfter) else { continue }
            let key = verified.userKey.rawRepresentation
            guard key != ourKey else { continue }
            if !listing.keys.contains(key) { listing.keys.append(key) }
            listing.devices.append(json.deviceID.rawValue.lowercased())
        }
        return listing
    }
}
