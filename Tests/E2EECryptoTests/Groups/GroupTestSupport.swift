import E2EECrypto
import Foundation

/// A fresh random UUID in the protocol's wire form.
func randomUUID() -> WireUUID {
    // 16 random bytes always make a valid WireUUID.
    (try? WireUUID(bytes: SystemRandom().bytes(count: 16))) ?? randomUUID()
}

/// A real (if simplified) pairwise channel for envelope tests: one XChaCha20-Poly1305 key per
/// (sender, recipient) pair, messages shaped like a normal pairwise message
/// (`0x01 || 40-byte header || ciphertext`), so envelope code sees realistic bytes. It stands in
/// for the Double Ratchet, which another module builds; the envelope code only needs *some*
/// authenticated pairwise encryption.
struct TestPairwise {
    private let keys: [WireUUID: SecretBytes]

    /// Keys for each recipient device.
    init(devices: [WireUUID]) {
        var keys: [WireUUID: SecretBytes] = [:]
        for device in devices { keys[device] = SecretBytes.random(count: 32) }
        self.keys = keys
    }

    func encrypt(_ device: WireUUID, _ plaintext: SecretBytes) throws -> [UInt8] {
        guard let key = keys[device] else { throw ProtocolError.unknownSession }
        let nonce = SystemRandom().bytes(count: 24)
        let header = nonce + [UInt8](repeating: 0, count: 16)
        return [0x01] + header + (try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, authenticating: header))
    }

    func decrypt(_ device: WireUUID, _ message: [UInt8]) throws -> SecretBytes {
        guard let key = keys[device] else { throw ProtocolError.unknownSession }
        guard message.count >= 57, message[0] == 0x01 else { throw ProtocolError.malformed(.normalMessage, reason: "test") }
        let header = Array(message[1..<41])
        return try XChaCha20Poly1305.open(Array(message[41...]), key: key, nonce: Array(header[0..<24]), authenticating: header)
    }
}

/// Random bytes that follow a script first (to force collisions), then the system generator.
final class ScriptedRandom: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var script: [UInt8]

    init(script: [UInt8]) {
        self.script = script
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        for index in buffer.indices {
            if script.isEmpty {
                SystemRandom().fill(UnsafeMutableRawBufferPointer(rebasing: buffer[index...]))
                return
            }
            buffer[index] = script.removeFirst()
        }
    }
}

/// A group with one sending device and any number of receiving devices that installed its
/// sender key through the public SKD path (encode → pairwise plaintext → decode → process).
struct GroupFixture {
    let channel = randomUUID()
    let senderDevice = randomUUID()
    var sender: SenderKeySendingState
    let now: Int64 = 1_800_000_000

    init() {
        sender = SenderKeySendingState.generate(channel: channel, retainedKeyIDs: [], using: SystemRandom())
    }

    /// A receiver installed from the sender's current distribution.
    func installReceiver() throws -> SenderKeyReceivingState {
        let plaintext = PairwisePlaintext.senderKeyDistribution(sender.distribution).encoded()
        guard case .senderKeyDistribution(let skd) = try PairwisePlaintext.decode(plaintext) else {
            throw ProtocolError.wrongEnvelopeType
        }
        guard case .install(let state) = try skd.process(postedChannel: channel, senderDevice: senderDevice, existing: nil, now: now) else {
            throw ProtocolError.duplicate
        }
        return state
    }

    /// Sends `count` messages whose text is their index; returns the envelopes.
    mutating func send(_ count: Int) throws -> [GroupEnvelope] {
        var envelopes: [GroupEnvelope] = []
        for index in 0..<count {
            let (envelope, next) = try sender.encrypt(Array("message \(index)".utf8), senderDevice: senderDevice)
            envelopes.append(envelope)
            sender = next
        }
        return envelopes
    }
}

extension SecretBytes {
    /// The contents as text, for assertions.
    var text: String { String(decoding: unprotectedCopy(), as: UTF8.self) }
}
