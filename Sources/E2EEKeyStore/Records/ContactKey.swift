/// What this device knows of one user key `K` of a contact user `U` (docs/spec/protocol.md §10.2):
/// user keys and certificates are public, so nothing here is sealed.
package struct ContactKey: Sendable, Equatable {
    /// How this device stands towards the key.
    package enum State: String, Sendable, CaseIterable {
        /// Seen in a listing, never pinned here.
        case listed
        /// The user's pinned key.
        case pinned
        /// Pinned once, then replaced by a later pin (or by *no key*).
        case replaced
        /// Offered as a change and refused by the app.
        case declined
        /// The user's pinned key, marked verified after comparing safety numbers.
        case verified

        /// Whether the key is the user's current pin.
        public var isPinned: Bool { self == .pinned || self == .verified }
    }

    /// The user.
    public var userID: String
    /// `UMK_pub`, 32 bytes.
    public var key: [UInt8]
    /// The standing.
    public var state: State
    /// `E_max(U, K)`: the highest epoch of a current certificate seen under the key; never lowered.
    public var maxEpoch: UInt32
    /// `seen_until(U, K)`: the latest `not_after` (unix seconds) of a current certificate
    /// verified under the key; never lowered by a listing.
    public var seenUntil: UInt32
    /// `seen_at(U, K)`: when this device last read a current certificate under the key (unix seconds).
    public var seenAt: Int64
    /// When this device first saw the key listed (unix seconds); the oldest listed-only keys are
    /// forgotten first.
    public var firstListedAt: Int64

    /// Creates the value.
    public init(userID: String, key: [UInt8], state: State, maxEpoch: UInt32, seenUntil: UInt32, seenAt: Int64, firstListedAt: Int64) {
        self.userID = userID
        self.key = key
        self.state = state
        self.maxEpoch = maxEpoch
        self.seenUntil = seenUntil
        self.seenAt = seenAt
        self.firstListedAt = firstListedAt
    }
}

/// Where a contact user stands with user keys (docs/spec/protocol.md §10.4–§10.6, §10.17).
package struct ContactKeyStanding: Sendable, Equatable {
    /// The user's key state.
    package enum State: String, Sendable, CaseIterable {
        /// Known without a key: text 1.2's holds and approvals apply.
        case none
        /// One key pinned; only the devices it links are recipients and senders.
        case pinned
        /// Current certificates under two or more keys and nothing pinned: nothing is sent to
        /// the user until the app pins one.
        case conflicted
    }

    /// A key change that became due and waits for the app (§10.17).
    package struct PendingChange: Sendable, Equatable {
        /// The candidate key; `nil` is *no key* (the user returns to ``State/none``).
        public var to: [UInt8]?
        /// When the change became due by this device's agreed reading (unix seconds).
        public var dueAt: Int64
        /// Whether a device last linked under the old key now carries the candidate under its own signature.
        public var vouched: Bool
        /// Whether the old key was marked verified.
        public var wasVerified: Bool

        /// Creates the value.
        public init(to: [UInt8]?, dueAt: Int64, vouched: Bool, wasVerified: Bool) {
            self.to = to
            self.dueAt = dueAt
            self.vouched = vouched
            self.wasVerified = wasVerified
        }
    }

    /// The user.
    public var userID: String
    /// The state.
    public var state: State
    /// The pinned key (with ``State/pinned``).
    public var pinnedKey: [UInt8]?
    /// A due change awaiting acceptance.
    public var pendingChange: PendingChange?
    /// When another listed key was last surfaced (unix seconds): at most daily per user.
    public var otherKeySurfacedAt: Int64?

    /// Creates the value.
    public init(userID: String, state: State, pinnedKey: [UInt8]? = nil, pendingChange: PendingChange? = nil, otherKeySurfacedAt: Int64? = nil) {
        self.userID = userID
        self.state = state
        self.pinnedKey = pinnedKey
        self.pendingChange = pendingChange
        self.otherKeySurfacedAt = otherKeySurfacedAt
    }
}

/// The last certificate this device verified for one device of a contact, and whether that
/// device was linked at `E_max` when last judged (docs/spec/protocol.md §10.4, §10.7).
package struct DeviceLink: Sendable, Equatable {
    /// The user.
    public var userID: String
    /// The device.
    public var deviceID: String
    /// The user key its last verified certificate named (`nil`: none verified).
    public var key: [UInt8]?
    /// That certificate's epoch (0 when none).
    public var epoch: UInt32
    /// That certificate's `not_after` (0 when none).
    public var notAfter: UInt32
    /// Whether the device was linked when last judged.
    public var linked: Bool
    /// The 104 bytes of that certificate (`nil`: none verified, or verified before schema `v21`).
    public var certificate: [UInt8]?

    /// Creates the value.
    public init(userID: String, deviceID: String, key: [UInt8]?, epoch: UInt32, notAfter: UInt32, linked: Bool, certificate: [UInt8]? = nil) {
        self.userID = userID
        self.deviceID = deviceID
        self.key = key
        self.epoch = epoch
        self.notAfter = notAfter
        self.linked = linked
        self.certificate = certificate
    }
}

/// This device's clock readings for text 1.3 (docs/spec/protocol.md §10.19), in unix seconds.
package struct ClockReadings: Sendable, Equatable {
    /// The highest reading seen.
    public var mark: Int64
    /// The reading at the 201 of this device's latest post.
    public var latestPostReading: Int64?
    /// The highest reading at a post's 201 within a day of its `created_at`, or at the user's confirmation.
    public var agreedReading: Int64?
    /// A reading over a day below the mark was seen and the user has not confirmed the clock.
    public var wentBack: Bool
    /// The latest post's `created_at` differed from the reading at its 201 by over a day.
    public var suspect: Bool

    /// Creates the value.
    public init(mark: Int64, latestPostReading: Int64? = nil, agreedReading: Int64? = nil, wentBack: Bool = false, suspect: Bool = false) {
        self.mark = mark
        self.latestPostReading = latestPostReading
        self.agreedReading = agreedReading
        self.wentBack = wentBack
        self.suspect = suspect
    }
}

extension Array where Element == ContactKey {
    /// Pins `key` of `userID` in these keys (keeping a verified mark on it; a key not among them is
    /// added, pinned) and marks every other pinned key replaced: the one rule of a new pin, for a
    /// first contact, an adoption and the app's decisions alike (docs/spec/protocol.md §10.17).
    package mutating func pin(_ key: [UInt8], userID: String) {
        for index in indices where self[index].state.isPinned && self[index].key != key { self[index].state = .replaced }
        if let index = firstIndex(where: { $0.key == key }) {
            if !self[index].state.isPinned { self[index].state = .pinned }
        } else {
            append(ContactKey(userID: userID, key: key, state: .pinned, maxEpoch: 0, seenUntil: 0, seenAt: 0, firstListedAt: 0))
        }
    }
}
