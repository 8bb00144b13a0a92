import E2EECrypto

/// What importing a trust part did (docs/spec/protocol.md §11.5): how many records filled
/// something, the records this device had decided otherwise (its decision stands, to surface),
/// the records refused because their certificate proves nothing, and the legacy own devices the
/// caller stores with their lapse dates beside the primary file's mirror.
package struct TrustImportReport: Sendable, Equatable {
    /// Records that filled or refined something.
    package var applied = 0
    /// Records against a decision of this device, which stands.
    package var conflicts: [TrustImportConflict] = []
    /// Records refused: their certificate does not verify or proves nothing they claim.
    package var skipped: [TrustImportSkip] = []
    /// Own devices trusted without a certificate (legacy under text 1.2), with their lapse date
    /// (`nil`: none sent).
    package var legacyOwnDevices: [TransferredLegacyDevice] = []

    /// An empty report.
    package init() {}
}

/// An own device the primary trusts without a certificate.
package struct TransferredLegacyDevice: Sendable, Equatable {
    /// The device.
    package var deviceID: String
    /// When it lapses (unix seconds; `nil`: no date sent).
    package var until: UInt32?
}

/// A transferred record against a decision of this device.
package struct TrustImportConflict: Sendable, Equatable {
    /// What differs.
    package enum Reason: Sendable, Equatable {
        /// The channel is pinned here as the other kind.
        case channelKind
        /// This device stands otherwise in the channel.
        case channelStanding
        /// The DM's participants are fixed here as other users.
        case participants
        /// This device approved or declined the member otherwise.
        case memberStanding
        /// This device sends to or declined the device otherwise in the channel.
        case deviceStanding
        /// A different identity blob is pinned here for the device.
        case identity
        /// This device decided the user's key standing otherwise (a pin, a conflict, no key).
        case userKey
        /// This device distrusted the user's devices (a return to no key).
        case distrusted
    }

    /// The record.
    package var record: TrustRecord
    /// Why it was not applied.
    package var reason: Reason
}

/// A transferred record refused because its certificate proves nothing.
package struct TrustImportSkip: Sendable, Equatable {
    /// Why.
    package enum Reason: Sendable, Equatable {
        /// `cert_sig` does not verify for the user, device and identity blob.
        case certificateDoesNotVerify
        /// The certificate is under another key than the record's (or than our own pinned key).
        case otherKey
        /// The certificate's epoch is not the `E_max` the record claims.
        case epochNotProven
    }

    /// The record.
    package var record: TrustRecord
    /// Why it was refused.
    package var reason: Reason
}
