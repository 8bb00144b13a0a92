import E2EECrypto

/// The trust part of a link transfer as the primary reads it from its store
/// (docs/spec/protocol.md §11.3): the trust records of §11.2 in their fixed order, and what the
/// store holds but could not put in a record.
package struct TrustSnapshot: Sendable, Equatable {
    /// The records, in the order they are sent: own devices, channels, DM participants, approved
    /// members, holds and declines, contact keys, contacts' devices trusted without a certificate;
    /// within each, by ids (``TrustSnapshotReader``).
    package var records: [TrustRecord]
    /// What was left out, and why.
    package var omitted: [TrustSnapshotOmission]

    /// A snapshot of these values.
    package init(records: [TrustRecord], omitted: [TrustSnapshotOmission]) {
        self.records = records
        self.omitted = omitted
    }
}

/// A stored decision a snapshot could not carry.
package struct TrustSnapshotOmission: Sendable, Equatable {
    /// Why it was left out.
    package enum Reason: Sendable, Equatable {
        /// An id that is not a lower-case UUID cannot go on the wire.
        case idNotUUID
        /// A device trusted without its identity blob pinned: the record needs the blob.
        case noIdentity
        /// A contact key for which no verified certificate is stored (read before schema `v21`,
        /// or no device under the key is listed any more): nothing proves its `E_max`.
        case keyWithoutProof
    }

    /// What was left out, as a mark subject (``TrustMarkSubject``).
    package var subject: String
    /// Why.
    package var reason: Reason

    /// An omission of these values.
    package init(subject: String, reason: Reason) {
        self.subject = subject
        self.reason = reason
    }
}
