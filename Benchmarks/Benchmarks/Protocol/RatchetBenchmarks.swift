import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// Double Ratchet encrypt and decrypt of a 1 KiB plaintext in steady state: Alice sends normal
/// messages on one sending chain, Bob decrypts them in order on the matching receiving chain.
///
/// Each operation advances its chain, so the state is carried from sample to sample: "encrypt"
/// times `SessionRecord.encrypt` and keeps the returned record for the next sample; "decrypt"
/// has Alice encrypt the next message before `startMeasurement` (not timed) and times Bob's
/// `SessionRecord.decrypt` of it, keeping his returned record. No DH ratchet step happens on a
/// steady chain; that cost is in "X3DH respond".
///
/// The floor is the chain step (two HMACs), the message keys (HKDF, 44 bytes) and AES-256-GCM
/// of 1 KiB with the 170-byte associated data (both identity blobs and the 40-byte header).
func registerRatchetBenchmarks() {
    guard AES256GCM.isAvailable, let pairwise = try? Pairwise(), let (alice, bob) = try? pairwise.established() else { return }

    let sender = Carried(alice)
    floorPair("Ratchet encrypt 1KiB", ours: { benchmark in
        try benchmark.measureLoop {
            let sent = try sender.value.encrypt(message1KiB)
            sender.value = sent.record
            blackHole(sent.message)
        }
    }, floor: { benchmark in
        let floor = try RatchetFloor()
        let output = CBuffer(count: message1KiB.count + AES256GCM.tagLength)
        benchmark.measureLoop {
            floor.messageKeys()
            _ = crypto_aead_aes256gcm_encrypt(output.pointer, nil, floor.plaintext.readOnly, UInt64(floor.plaintext.count),
                                              floor.aad.readOnly, UInt64(floor.aad.count), nil, floor.nonce, floor.key)
            blackHole(output.pointer.pointee)
            floor.wipe()
        }
        withExtendedLifetime((floor, output)) {}
    })

    let channel = Carried((alice: alice, bob: bob))
    floorPair("Ratchet decrypt 1KiB", ours: { benchmark in
        let sent = try channel.value.alice.encrypt(message1KiB)
        channel.value.alice = sent.record
        guard case .normal(let message) = try PairwiseMessage(bytes: sent.message) else { throw Pairwise.SetupFailed(step: "normal message") }
        let receiver = channel.value.bob
        var received: PendingDecryption?
        try benchmark.measureLoop {
            received = try receiver.decrypt(message)
        }
        guard let received else { throw Pairwise.SetupFailed(step: "decrypt") }
        channel.value.bob = received.effects.record
    }, floor: { benchmark in
        let floor = try RatchetFloor()
        let ciphertext = try floor.sealedPlaintext()
        let output = CBuffer(count: message1KiB.count)
        try benchmark.measureLoop {
            floor.messageKeys()
            let status = crypto_aead_aes256gcm_decrypt(output.pointer, nil, nil, ciphertext.readOnly, UInt64(ciphertext.count),
                                                       floor.aad.readOnly, UInt64(floor.aad.count), floor.nonce, floor.key)
            guard status == 0 else { throw DirectCallFailed(function: "crypto_aead_aes256gcm_decrypt") }
            floor.wipe()
        }
        withExtendedLifetime((floor, ciphertext, output)) {}
    })
}

/// C buffers for one symmetric-ratchet step: a fixed chain key (so a ciphertext sealed in setup
/// opens in every sample; the work per sample is the same as on an advancing chain).
final class RatchetFloor {
    let chainKey = CBuffer(copying: SecretBytes.random(count: 32))
    let zero = CBuffer(count: 32)
    let info = CBuffer(copying: Labels.messageInfo)
    let plaintext = CBuffer(copying: message1KiB)
    /// `AD` (two identity blobs) and a 40-byte header.
    let aad = CBuffer(count: 2 * IdentityBlob.length + MessageHeader.length)
    let work = CBuffer(count: 32 * 2 + 44 + 64)

    var messageKey: UnsafeMutablePointer<UInt8> { work.pointer }
    var nextChainKey: UnsafeMutablePointer<UInt8> { work.pointer + 32 }
    var key: UnsafePointer<UInt8> { UnsafePointer(work.pointer + 64) }
    var nonce: UnsafePointer<UInt8> { UnsafePointer(work.pointer + 96) }

    init() throws {
        randombytes_buf(aad.pointer, aad.count)
    }

    /// `mk = HMAC(ck, 0x01)`, `ck' = HMAC(ck, 0x02)`, then `HKDF(ZERO32, mk, "e2ee-msg-v1", 44)`.
    @inline(__always)
    func messageKeys() {
        SodiumFloor.mac(key: chainKey.readOnly, byte: 0x01, into: messageKey)
        SodiumFloor.mac(key: chainKey.readOnly, byte: 0x02, into: nextChainKey)
        SodiumFloor.hkdf(salt: zero.readOnly, saltLength: 32, ikm: messageKey, ikmLength: 32, info: info.readOnly, infoLength: info.count,
                         into: work.pointer + 64, outputLength: 44, scratch: work.pointer + 108)
    }

    /// Wipes the derived keys, as the wrappers' `SecretBytes` do on release.
    @inline(__always)
    func wipe() {
        sodium_memzero(work.pointer, work.count)
    }

    /// The plaintext sealed under this chain key's message keys (setup only).
    func sealedPlaintext() throws -> CBuffer {
        let sealed = CBuffer(count: message1KiB.count + AES256GCM.tagLength)
        messageKeys()
        let status = crypto_aead_aes256gcm_encrypt(sealed.pointer, nil, plaintext.readOnly, UInt64(plaintext.count),
                                                   aad.readOnly, UInt64(aad.count), nil, nonce, key)
        guard status == 0 else { throw DirectCallFailed(function: "crypto_aead_aes256gcm_encrypt") }
        wipe()
        return sealed
    }
}
