import E2EECrypto
@testable import E2EEMessaging
import Synchronization

/// Two own devices of one user — the primary P and a new device N — and the plumbing that
/// carries one machine's `send` actions into the other's inputs, as the devices channel would.
struct LinkCeremonyFixture {
    let userID = WireUUID.fixture(0x01)
    let primary: LinkParty
    let newDevice: LinkParty
    let stranger: LinkParty
    let primarySelf: LinkSelf
    let newSelf: LinkSelf
    let strangerSelf: LinkSelf

    init() {
        primary = Self.party(0x0A)
        newDevice = Self.party(0x0B)
        stranger = Self.party(0x0C)
        primarySelf = Self.me(userID, primary, seed: 0x10)
        newSelf = Self.me(userID, newDevice, seed: 0x20)
        strangerSelf = Self.me(userID, stranger, seed: 0x30)
    }

    static func party(_ byte: UInt8) -> LinkParty {
        LinkParty(deviceID: .fixture(byte), identity: IdentityKeyPair().publicIdentity)
    }

    /// A device whose nonces and ids count up from `seed`, so two runs differ only where a test makes them.
    static func me(_ userID: WireUUID, _ party: LinkParty, seed: UInt8) -> LinkSelf {
        let counter = ByteCounter(seed)
        return LinkSelf(userID: userID, device: party,
                        makeNonce: { SecretBytes(copying: [UInt8](repeating: counter.next(), count: 32)) },
                        makeID: { .fixture(counter.next()) })
    }

    /// The plaintexts `actions` send to `device`.
    static func sent(_ actions: [LinkCeremonyAction], to device: LinkParty) -> [LinkPlaintext] {
        actions.compactMap { action in
            guard case .send(let plaintext, let target) = action, target == device.deviceID else { return nil }
            return plaintext
        }
    }

    /// The codes `actions` show.
    static func shownCode(_ actions: [LinkCeremonyAction]) -> String? {
        actions.lazy.compactMap { action -> String? in
            guard case .show(.showCode(let code)) = action else { return nil }
            return code
        }.first
    }

    /// The cancel reason `actions` show, if any.
    static func cancelled(_ actions: [LinkCeremonyAction]) -> LinkCancelReason? {
        actions.lazy.compactMap { action -> LinkCancelReason? in
            guard case .show(.cancelled(let reason)) = action else { return nil }
            return reason
        }.first
    }

    /// A grant as the primary's driver would build it for `party`, under `userKey`.
    func grant(for party: LinkParty, requestID: WireUUID, userKey: Ed25519.PrivateKey = Ed25519.PrivateKey(),
               notAfter: UInt32 = 2_000_000_000) throws -> LinkGrant {
        let certificate = try DeviceCertificate.issue(by: userKey, userID: userID, deviceID: party.deviceID, identity: party.identity,
                                                      epoch: 1, notAfter: notAfter)
        return try LinkGrant(requestID: requestID, certificate: certificate, transferID: .fixture(0xE0), transferChannelID: .fixture(0xE1))
    }
}

final class ByteCounter: Sendable {
    private let value: Mutex<UInt8>
    init(_ start: UInt8) { value = Mutex(start) }
    func next() -> UInt8 { value.withLock { $0 &+= 1; return $0 } }
}

extension WireUUID {
    /// An id of sixteen equal bytes.
    static func fixture(_ byte: UInt8) -> WireUUID {
        guard let id = try? WireUUID(bytes: [UInt8](repeating: byte, count: 16)) else { preconditionFailure("sixteen bytes are an id") }
        return id
    }
}
