import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// Sender-key encrypt (a group envelope of 1 KiB: chain step, AES-256-GCM, Ed25519 sign) and
/// decrypt (signature check, chain step, AES-256-GCM open), in steady state on one chain: the
/// sending and the receiving state are carried from sample to sample, and "decrypt" has the
/// sender encrypt the next envelope before `startMeasurement` (not timed).
///
/// The floors (SenderKeySendingState.encrypt, SenderKeyReceivingState+Decrypt.swift,
/// SenderKeyChain.swift): `mk = HMAC(CK, 0x01)`, `HKDF(ZERO32, mk, "e2ee-group-v1", 44)`,
/// AES-256-GCM with the 59-byte AAD (label, channel, 26-byte header), `crypto_sign_detached` /
/// `crypto_sign_verify_detached` over label ‖ channel ‖ header ‖ ct (1,099 bytes), and
/// `CK' = HMAC(CK, 0x02)`. The decrypt floor opens the real ciphertext with the derived key.
func registerSenderKeyBenchmarks() {
    guard AES256GCM.isAvailable,
          let channel = try? WireUUID(text: "0b5e7c1d-3f2a-4e6b-8c9d-0e1f2a3b4c5d"),
          let device = try? WireUUID(text: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d") else { return }
    let sending = SenderKeySendingState.generate(channel: channel, retainedKeyIDs: [], using: SystemRandom())
    guard case .install(let receiving)? = try? sending.distribution.process(postedChannel: channel, senderDevice: device, existing: nil, now: now) else {
        return
    }

    let sender = Carried(sending)
    floorPair("Sender-key encrypt 1KiB", ours: { benchmark in
        try benchmark.measureLoop {
            let (envelope, next) = try sender.value.encrypt(message1KiB, senderDevice: device)
            sender.value = next
            blackHole(envelope)
        }
    }, floor: { benchmark in
        let floor = try SenderKeyFloor(channel: channel, device: device)
        benchmark.measureLoop {
            floor.messageKeys()
            _ = crypto_aead_aes256gcm_encrypt(floor.signed.pointer + floor.prefixLength, nil, floor.plaintext.readOnly, UInt64(floor.plaintext.count),
                                              floor.aad.readOnly, UInt64(floor.aad.count), nil, floor.nonce, floor.key)
            _ = crypto_sign_detached(floor.signature.pointer, nil, floor.signed.readOnly, UInt64(floor.signed.count), floor.secretKey.readOnly)
            floor.nextChainKey()
            blackHole(floor.signature.pointer.pointee)
            floor.wipe()
        }
        withExtendedLifetime(floor) {}
    })

    let group = Carried((sender: sending, receiver: receiving))
    floorPair("Sender-key decrypt 1KiB", ours: { benchmark in
        let (envelope, next) = try group.value.sender.encrypt(message1KiB, senderDevice: device)
        group.value.sender = next
        let receiver = group.value.receiver
        var result: (plaintext: SecretBytes, state: SenderKeyReceivingState)?
        try benchmark.measureLoop {
            result = try receiver.decrypt(envelope, channel: channel, now: now)
        }
        guard let result else { throw Pairwise.SetupFailed(step: "sender-key decrypt") }
        group.value.receiver = result.state
    }, floor: { benchmark in
        let floor = try SenderKeyFloor(channel: channel, device: device)
        try floor.sealAndSign()
        let output = CBuffer(count: message1KiB.count)
        let ciphertext = floor.signed.readOnly + floor.prefixLength
        let ciphertextLength = UInt64(floor.signed.count - floor.prefixLength)
        try benchmark.measureLoop {
            guard crypto_sign_verify_detached(floor.signature.readOnly, floor.signed.readOnly, UInt64(floor.signed.count), floor.publicKey.readOnly) == 0 else {
                throw DirectCallFailed(function: "crypto_sign_verify_detached")
            }
            floor.messageKeys()
            guard crypto_aead_aes256gcm_decrypt(output.pointer, nil, nil, ciphertext, ciphertextLength,
                                                floor.aad.readOnly, UInt64(floor.aad.count), floor.nonce, floor.key) == 0 else {
                throw DirectCallFailed(function: "crypto_aead_aes256gcm_decrypt")
            }
            floor.nextChainKey()
            floor.wipe()
        }
        guard output.bytes == message1KiB else { throw DirectCallFailed(function: "sender-key decrypt floor: wrong plaintext") }
        withExtendedLifetime((floor, output)) {}
    })
}

/// C buffers for one sender-key message: a fixed chain key, an Ed25519 key pair, the AAD and
/// the signed bytes with room for the ciphertext in place (as a C caller would lay them out).
final class SenderKeyFloor {
    let chainKey = CBuffer(copying: SecretBytes.random(count: 32))
    let zero = CBuffer(count: 32)
    let info = CBuffer(copying: Labels.groupInfo)
    let plaintext = CBuffer(copying: message1KiB)
    let aad: CBuffer
    /// `"e2ee-group-sig-v1" ‖ channel ‖ header ‖ ct`.
    let signed: CBuffer
    let prefixLength: Int
    let signature = CBuffer(count: Int(crypto_sign_BYTES))
    let publicKey = CBuffer(count: Int(crypto_sign_PUBLICKEYBYTES))
    let secretKey = CBuffer(count: Int(crypto_sign_SECRETKEYBYTES))
    let work = CBuffer(count: 32 * 2 + 44 + 64)

    var key: UnsafePointer<UInt8> { UnsafePointer(work.pointer + 64) }
    var nonce: UnsafePointer<UInt8> { UnsafePointer(work.pointer + 96) }

    init(channel: WireUUID, device: WireUUID) throws {
        // The 26-byte header: type bytes, sender device, key id, iteration.
        let header: [UInt8] = [0x03, 0x02] + device.bytes + [0, 0, 0, 7, 0, 0, 0, 0]
        aad = CBuffer(copying: Labels.groupAAD + channel.bytes + header)
        let prefix = Labels.groupSignature + channel.bytes + header
        prefixLength = prefix.count
        signed = CBuffer(count: prefix.count + message1KiB.count + AES256GCM.tagLength)
        signed.pointer.update(from: prefix, count: prefix.count)
        guard crypto_sign_keypair(publicKey.pointer, secretKey.pointer) == 0 else { throw DirectCallFailed(function: "crypto_sign_keypair") }
    }

    /// `mk = HMAC(CK, 0x01)`, then `HKDF(ZERO32, mk, "e2ee-group-v1", 44)`.
    @inline(__always)
    func messageKeys() {
        SodiumFloor.mac(key: chainKey.readOnly, byte: 0x01, into: work.pointer)
        SodiumFloor.hkdf(salt: zero.readOnly, saltLength: 32, ikm: work.pointer, ikmLength: 32, info: info.readOnly, infoLength: info.count,
                         into: work.pointer + 64, outputLength: 44, scratch: work.pointer + 108)
    }

    /// `CK' = HMAC(CK, 0x02)`.
    @inline(__always)
    func nextChainKey() {
        SodiumFloor.mac(key: chainKey.readOnly, byte: 0x02, into: work.pointer + 32)
    }

    /// Wipes the derived keys.
    @inline(__always)
    func wipe() {
        sodium_memzero(work.pointer, work.count)
    }

    /// Seals the plaintext into `signed` and signs it (setup of the decrypt floor).
    func sealAndSign() throws {
        messageKeys()
        guard crypto_aead_aes256gcm_encrypt(signed.pointer + prefixLength, nil, plaintext.readOnly, UInt64(plaintext.count),
                                            aad.readOnly, UInt64(aad.count), nil, nonce, key) == 0,
              crypto_sign_detached(signature.pointer, nil, signed.readOnly, UInt64(signed.count), secretKey.readOnly) == 0 else {
            throw DirectCallFailed(function: "seal and sign")
        }
        wipe()
    }
}
