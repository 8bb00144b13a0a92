import E2EECrypto
import Testing

@Suite("Safety numbers and identity changes")
struct SafetyNumberTests {
    static let userA = "0A1B2C3D-4E5F-4A6B-8C7D-8E9F00112233"
    static let userB = "ffffffff-0000-4000-8000-000000000000"
    static let blobsA: [[UInt8]] = [[0x01] + [UInt8](repeating: 0x11, count: 64), [0x01] + [UInt8](repeating: 0x22, count: 64)]
    static let blobsB: [[UInt8]] = [[0x01] + (0..<64).map { UInt8($0) }]

    @Test("known answer, computed independently (Python hashlib) from docs/spec/protocol.md §7")
    func knownAnswer() throws {
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: Self.blobsA) == "085329639061904722923519485938")
        #expect(try SafetyNumber.fingerprint(userID: Self.userB, identityBlobs: Self.blobsB) == "421151559365171414881552781470")
        #expect(try SafetyNumber.compute(userA: Self.userA, blobsA: Self.blobsA, userB: Self.userB, blobsB: Self.blobsB)
            == "08532 96390 61904 72292 35194 85938 42115 15593 65171 41488 15527 81470")
    }

    @Test("symmetric, stable, and independent of device order; the user id is lower-cased")
    func symmetryAndOrder() throws {
        let ab = try SafetyNumber.compute(userA: Self.userA, blobsA: Self.blobsA, userB: Self.userB, blobsB: Self.blobsB)
        let ba = try SafetyNumber.compute(userA: Self.userB, blobsA: Self.blobsB, userB: Self.userA, blobsB: Self.blobsA)
        #expect(ab == ba)
        #expect(try SafetyNumber.compute(userA: Self.userA, blobsA: Self.blobsA.reversed(), userB: Self.userB, blobsB: Self.blobsB) == ab)
        #expect(try SafetyNumber.fingerprint(userID: Self.userA.lowercased(), identityBlobs: Self.blobsA)
            == SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: Self.blobsA))
        let groups = ab.split(separator: " ")
        #expect(groups.count == 12 && groups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
    }

    @Test("any change to any device's blob, an added or a removed device, or the user id changes the number")
    func sensitivity() throws {
        let base = try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: Self.blobsA)
        for device in Self.blobsA.indices {
            for position in [1, 17, 32, 33, 50, 64] {
                var blobs = Self.blobsA
                blobs[device][position] ^= 0x01
                #expect(try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: blobs) != base)
            }
        }
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: [Self.blobsA[0]]) != base)
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: Self.blobsA + Self.blobsB) != base)
        #expect(try SafetyNumber.fingerprint(userID: Self.userB, identityBlobs: Self.blobsA) != base)
    }

    @Test("malformed inputs are typed")
    func malformed() {
        #expect(throws: ProtocolError.self) { try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: []) }
        #expect(throws: ProtocolError.self) { try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: [[0x01] + [UInt8](repeating: 0, count: 63)]) }
        #expect(throws: ProtocolError.self) { try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: [[0x02] + [UInt8](repeating: 0, count: 64)]) }
        #expect(throws: ProtocolError.self) { try SafetyNumber.combine("123", String(repeating: "1", count: 30)) }
        #expect(throws: ProtocolError.self) { try SafetyNumber.combine(String(repeating: "x", count: 30), String(repeating: "1", count: 30)) }
    }

    @Test("identity changes: new, changed and removed devices are each reported; nothing is silently accepted")
    func identityChanges() throws {
        let kept = randomUUID(), changed = randomUUID(), removed = randomUUID(), added = randomUUID()
        let pinned = [kept: Self.blobsA[0], changed: Self.blobsA[1], removed: Self.blobsB[0]]
        var altered = Self.blobsA[1]
        altered[40] ^= 0xFF
        let listed = [kept: Self.blobsA[0], changed: altered, added: Self.blobsB[0]]
        let changes = IdentityChanges(pinned: pinned, listed: listed)
        #expect(changes.newDevices == [added])
        #expect(changes.changedDevices == [changed])
        #expect(changes.removedDevices == [removed])
        #expect(!changes.isEmpty)
        #expect(IdentityChanges(pinned: pinned, listed: pinned).isEmpty)
        // A safety number is never computed over a changed identity.
        #expect(throws: ProtocolError.identityMismatch) { try SafetyNumber.fingerprint(userID: Self.userA, listed: listed, pinned: pinned) }
        let unchanged = [kept: Self.blobsA[0], changed: Self.blobsA[1]]
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, listed: unchanged, pinned: pinned)
            == SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: Self.blobsA))
    }
}
