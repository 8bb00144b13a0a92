import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// X3DH initiate (from a verified bundle with a one-time prekey) and respond (to the prekey
/// message that carries Alice's first 1 KiB message).
///
/// What each side really does (X3DH.swift, X3DH+Responder.swift, SessionState+Ratchet.swift):
/// - initiate: a fresh `EK` (random + `crypto_scalarmult_base`), DH1–DH4 (`crypto_scalarmult`
///   and the all-zero check each), `SK = HKDF(ZERO32, 0xFF*32‖DH1‖…‖DH4, "e2ee-x3dh-v1", 32)`,
///   a fresh ratchet key pair, one more DH with `SPK_B` and `KDF_RK` (HKDF, 64 bytes). The
///   bundle's SPK signature was verified when the bundle was parsed, not here.
/// - respond: no signature check at all; DH1–DH4 and the same HKDF, then the first decryption,
///   which is a DH ratchet step (DH, `KDF_RK`, fresh key pair, DH, `KDF_RK`), the chain step
///   (two HMACs), the message keys (HKDF, 44 bytes) and AES-256-GCM open of 1 KiB.
/// The floors make exactly these libsodium calls. The respond floor derives the real keys, so
/// its AES-GCM open succeeds only if it reproduces the protocol (it throws otherwise).
func registerX3DHBenchmarks() {
    guard AES256GCM.isAvailable, let pairwise = try? Pairwise() else { return }

    floorPair("X3DH initiate", ours: { benchmark in
        let (alice, bundle) = (pairwise.alice, pairwise.bundle)
        try benchmark.measureLoop {
            blackHole(try X3DH.initiate(localIdentity: alice, bundle: bundle, pinnedIdentity: nil))
        }
    }, floor: { benchmark in
        let aliceIdentity = CBuffer(copying: pairwise.alice.dhKey.rawRepresentation)
        let bobIdentity = CBuffer(copying: pairwise.bundle.identity.dhKey.rawRepresentation)
        let signedPrekey = CBuffer(copying: pairwise.bundle.signedPrekey.publicKey.rawRepresentation)
        let oneTimePrekey = CBuffer(copying: pairwise.oneTimePrekey.published.publicKey.rawRepresentation)
        let (zero, x3dhInfo, ratchetInfo) = (CBuffer(count: 32), CBuffer(copying: Labels.x3dhInfo), CBuffer(copying: Labels.ratchetInfo))
        let ikm = CBuffer(count: 160)
        ikm.pointer.update(repeating: 0xFF, count: 32)
        let work = CBuffer(count: 32 * 8 + 64)
        let (ephemeral, ephemeralPublic, sharedKey, ratchet, ratchetPublic, dh, root, scratch) = (
            work.pointer, work.pointer + 32, work.pointer + 64, work.pointer + 96, work.pointer + 128,
            work.pointer + 160, work.pointer + 192, work.pointer + 256
        )
        let spk = signedPrekey.readOnly
        try benchmark.measureLoop {
            SodiumFloor.keyPair(scalar: ephemeral, publicKey: ephemeralPublic)
            try SodiumFloor.dh(ikm.pointer + 32, scalar: aliceIdentity.readOnly, point: spk)
            try SodiumFloor.dh(ikm.pointer + 64, scalar: ephemeral, point: bobIdentity.readOnly)
            try SodiumFloor.dh(ikm.pointer + 96, scalar: ephemeral, point: spk)
            try SodiumFloor.dh(ikm.pointer + 128, scalar: ephemeral, point: oneTimePrekey.readOnly)
            SodiumFloor.hkdf(salt: zero.readOnly, saltLength: 32, ikm: ikm.readOnly, ikmLength: 160,
                             info: x3dhInfo.readOnly, infoLength: x3dhInfo.count, into: sharedKey, outputLength: 32, scratch: scratch)
            SodiumFloor.keyPair(scalar: ratchet, publicKey: ratchetPublic)
            try SodiumFloor.dh(dh, scalar: ratchet, point: spk)
            SodiumFloor.hkdf(salt: sharedKey, saltLength: 32, ikm: dh, ikmLength: 32,
                             info: ratchetInfo.readOnly, infoLength: ratchetInfo.count, into: root, outputLength: 64, scratch: scratch)
            blackHole(root.pointee)
            sodium_memzero(ikm.pointer + 32, 128)
            sodium_memzero(work.pointer, work.count)
        }
        withExtendedLifetime((aliceIdentity, bobIdentity, signedPrekey, oneTimePrekey, zero, x3dhInfo, ratchetInfo, ikm, work)) {}
    })

    floorPair("X3DH respond", ours: { benchmark in
        let (message, context) = (pairwise.prekeyMessage, pairwise.responderContext)
        try benchmark.measureLoop {
            blackHole(try X3DH.respond(to: message, record: nil, context: context))
        }
    }, floor: { benchmark in
        let message = pairwise.prekeyMessage
        let bobIdentity = CBuffer(copying: pairwise.bob.dhKey.rawRepresentation)
        let signedPrekey = CBuffer(copying: pairwise.signedPrekey.keyPair.rawRepresentation)
        let oneTimePrekey = CBuffer(copying: pairwise.oneTimePrekey.keyPair.rawRepresentation)
        let aliceIdentity = CBuffer(copying: message.identity.dhKey.rawRepresentation)
        let baseKey = CBuffer(copying: message.baseKey.rawRepresentation)
        let remoteRatchet = CBuffer(copying: message.message.header.ratchetKey.rawRepresentation)
        let ciphertext = CBuffer(copying: message.message.ciphertext)
        let aad = CBuffer(copying: message.identity.bytes + pairwise.bob.publicIdentity.bytes + message.message.header.bytes)
        let (zero, x3dhInfo, ratchetInfo, messageInfo) = (
            CBuffer(count: 32), CBuffer(copying: Labels.x3dhInfo), CBuffer(copying: Labels.ratchetInfo), CBuffer(copying: Labels.messageInfo)
        )
        let ikm = CBuffer(count: 160)
        ikm.pointer.update(repeating: 0xFF, count: 32)
        let work = CBuffer(count: 32 * 10 + 64 + 64)
        let w = work.pointer
        let (sharedKey, dh, receiving, ratchet, ratchetPublic, sending, messageKey, nextChain, keys, scratch) = (
            w, w + 32, w + 64, w + 128, w + 160, w + 192, w + 256, w + 288, w + 320, w + 384
        )
        let output = CBuffer(count: ciphertext.count - AES256GCM.tagLength)
        let spk = signedPrekey.readOnly
        try benchmark.measureLoop {
            try SodiumFloor.dh(ikm.pointer + 32, scalar: spk, point: aliceIdentity.readOnly)
            try SodiumFloor.dh(ikm.pointer + 64, scalar: bobIdentity.readOnly, point: baseKey.readOnly)
            try SodiumFloor.dh(ikm.pointer + 96, scalar: spk, point: baseKey.readOnly)
            try SodiumFloor.dh(ikm.pointer + 128, scalar: oneTimePrekey.readOnly, point: baseKey.readOnly)
            SodiumFloor.hkdf(salt: zero.readOnly, saltLength: 32, ikm: ikm.readOnly, ikmLength: 160,
                             info: x3dhInfo.readOnly, infoLength: x3dhInfo.count, into: sharedKey, outputLength: 32, scratch: scratch)
            // The DH ratchet step: receiving chain from the SPK pair, then a fresh sending pair.
            try SodiumFloor.dh(dh, scalar: spk, point: remoteRatchet.readOnly)
            SodiumFloor.hkdf(salt: sharedKey, saltLength: 32, ikm: dh, ikmLength: 32,
                             info: ratchetInfo.readOnly, infoLength: ratchetInfo.count, into: receiving, outputLength: 64, scratch: scratch)
            SodiumFloor.keyPair(scalar: ratchet, publicKey: ratchetPublic)
            try SodiumFloor.dh(dh, scalar: ratchet, point: remoteRatchet.readOnly)
            SodiumFloor.hkdf(salt: receiving, saltLength: 32, ikm: dh, ikmLength: 32,
                             info: ratchetInfo.readOnly, infoLength: ratchetInfo.count, into: sending, outputLength: 64, scratch: scratch)
            // The chain step and the message.
            SodiumFloor.mac(key: receiving + 32, byte: 0x01, into: messageKey)
            SodiumFloor.mac(key: receiving + 32, byte: 0x02, into: nextChain)
            SodiumFloor.hkdf(salt: zero.readOnly, saltLength: 32, ikm: messageKey, ikmLength: 32,
                             info: messageInfo.readOnly, infoLength: messageInfo.count, into: keys, outputLength: 44, scratch: scratch)
            let status = crypto_aead_aes256gcm_decrypt(output.pointer, nil, nil, ciphertext.readOnly, UInt64(ciphertext.count),
                                                       aad.readOnly, UInt64(aad.count), keys + 32, keys)
            guard status == 0 else { throw DirectCallFailed(function: "crypto_aead_aes256gcm_decrypt") }
            sodium_memzero(ikm.pointer + 32, 128)
            sodium_memzero(w, work.count)
        }
        guard output.bytes == message1KiB else { throw DirectCallFailed(function: "X3DH respond floor: wrong plaintext") }
        withExtendedLifetime((bobIdentity, signedPrekey, oneTimePrekey, aliceIdentity, baseKey, remoteRatchet, ciphertext, aad,
                              zero, x3dhInfo, ratchetInfo, messageInfo, ikm, work, output)) {}
    })
}
