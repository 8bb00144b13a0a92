import E2EECrypto
import Testing

@Suite("Sender keys: chain, order, duplicates and limits")
struct SenderKeyChainTests {
    @Test("iterations 0…N decrypt in order and advance the chain one step each")
    func inOrderChain() throws {
        var group = GroupFixture()
        var receiver = try group.installReceiver()
        let envelopes = try group.send(25)
        for (index, envelope) in envelopes.enumerated() {
            #expect(envelope.iteration == UInt32(index))
            #expect(envelope.keyID == group.sender.keyID)
            let (plaintext, next) = try receiver.decrypt(envelope, channel: group.channel, now: group.now + Int64(index))
            #expect(plaintext.text == "message \(index)")
            #expect(next.nextIteration == UInt32(index + 1))
            #expect(next.skippedIterations.isEmpty)
            #expect(next.lastDecryptedAt == group.now + Int64(index))
            receiver = next
        }
        #expect(group.sender.iteration == 25)
    }

    @Test("every iteration uses a different key and nonce: equal payloads give different ciphertexts")
    func distinctCiphertexts() throws {
        var group = GroupFixture()
        var seen = Set<[UInt8]>()
        for _ in 0..<20 {
            let (envelope, next) = try group.sender.encrypt(Array("same".utf8), senderDevice: group.senderDevice)
            #expect(seen.insert(envelope.ciphertext).inserted)
            group.sender = next
        }
    }

    @Test("out-of-order messages decrypt from stored skipped keys, each key used once")
    func outOfOrder() throws {
        var group = GroupFixture()
        var receiver = try group.installReceiver()
        let envelopes = try group.send(10)
        let (plaintext5, afterFive) = try receiver.decrypt(envelopes[5], channel: group.channel, now: group.now)
        #expect(plaintext5.text == "message 5")
        #expect(afterFive.skippedIterations == [0, 1, 2, 3, 4])
        receiver = afterFive
        for index in [2, 9, 0, 4, 7, 1, 3, 6, 8] {
            let (plaintext, next) = try receiver.decrypt(envelopes[index], channel: group.channel, now: group.now)
            #expect(plaintext.text == "message \(index)")
            receiver = next
        }
        #expect(receiver.skippedIterations.isEmpty)
        #expect(receiver.nextIteration == 10)
    }

    @Test("T8: a used position is typed .positionReused and leaves the state byte-identical; late messages stay readable after persisting")
    func duplicatesAndLateMessages() throws {
        var group = GroupFixture()
        var receiver = try group.installReceiver()
        let envelopes = try group.send(6)
        receiver = try receiver.decrypt(envelopes[3], channel: group.channel, now: group.now).state
        let before = receiver.serialized()
        // The receiving state cannot tell the same bytes from a rival at the position (the
        // messaging layer answers identical copies from its dedupe first, §6.6).
        #expect(throws: ProtocolError.positionReused) { try receiver.decrypt(envelopes[3], channel: group.channel, now: group.now) }
        #expect(receiver.serialized() == before)
        // Persist and restore (the key store seals exactly these bytes), then read the late ones.
        var restored = try SenderKeyReceivingState(serialized: before)
        #expect(restored.serialized() == before)
        for index in [1, 0, 2, 5, 4] {
            let (plaintext, next) = try restored.decrypt(envelopes[index], channel: group.channel, now: group.now)
            #expect(plaintext.text == "message \(index)")
            restored = next
        }
        // A skipped key that was used is a used position afterwards, too.
        #expect(throws: ProtocolError.positionReused) { try restored.decrypt(envelopes[1], channel: group.channel, now: group.now) }
    }

    @Test("whenJumpExceedsLimit_thenRejectsWithoutAdvancing (exactly the limit is accepted)")
    func jumpLimit() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let envelopes = try group.send(ProtocolLimits.maxSenderKeyJump + 2)
        let before = receiver.serialized()
        let tooFar = envelopes[ProtocolLimits.maxSenderKeyJump + 1]
        #expect(throws: ProtocolError.tooFarAhead(jump: 2001, limit: 2000)) {
            try receiver.decrypt(tooFar, channel: group.channel, now: group.now)
        }
        #expect(receiver.serialized() == before)
        let (plaintext, next) = try receiver.decrypt(envelopes[ProtocolLimits.maxSenderKeyJump], channel: group.channel, now: group.now)
        #expect(plaintext.text == "message 2000")
        #expect(next.skippedIterations.count == 2000)
        // From there, the former "too far" message is one step ahead and decrypts.
        #expect(try next.decrypt(tooFar, channel: group.channel, now: group.now).plaintext.text == "message 2001")
    }

    @Test("skipped keys are capped at 2,000 keeping the highest; an evicted iteration is .tooOld")
    func skippedKeyCap() throws {
        var group = GroupFixture()
        var receiver = try group.installReceiver()
        let envelopes = try group.send(2003)
        receiver = try receiver.decrypt(envelopes[2000], channel: group.channel, now: group.now).state
        receiver = try receiver.decrypt(envelopes[2002], channel: group.channel, now: group.now).state
        #expect(receiver.skippedIterations.count == ProtocolLimits.maxStoredSenderKeySkippedKeys)
        #expect(receiver.skippedIterations.first == 1)
        #expect(receiver.skippedIterations.last == 2001)
        #expect(receiver.evictedThrough == 0)
        let before = receiver.serialized()
        #expect(throws: ProtocolError.tooOld) { try receiver.decrypt(envelopes[0], channel: group.channel, now: group.now) }
        #expect(receiver.serialized() == before)
        #expect(try receiver.decrypt(envelopes[1], channel: group.channel, now: group.now).plaintext.text == "message 1")
        let restored = try SenderKeyReceivingState(serialized: before)
        #expect(restored.evictedThrough == 0)
        #expect(restored.serialized() == before)
    }

    @Test("a receiver installed at iteration k finds earlier messages .tooOld (joiners get the current state only)")
    func joinerCannotReadHistory() throws {
        var group = GroupFixture()
        let history = try group.send(5)
        #expect(group.sender.distribution.iteration == 5)
        let joiner = try group.installReceiver()
        #expect(joiner.installedIteration == 5)
        for envelope in history {
            #expect(throws: ProtocolError.tooOld) { try joiner.decrypt(envelope, channel: group.channel, now: group.now) }
        }
        let next = try group.send(1)
        #expect(try joiner.decrypt(next[0], channel: group.channel, now: group.now).plaintext.text == "message 0")
    }

    @Test("rotation: needed after 100 messages; a new key id avoids every retained one")
    func rotation() throws {
        var group = GroupFixture()
        _ = try group.send(ProtocolLimits.senderKeyRotationMessageCount - 1)
        #expect(!group.sender.needsRotation)
        _ = try group.send(1)
        #expect(group.sender.needsRotation)
        // The scripted source first offers two retained ids (big-endian bytes are irrelevant:
        // uint32() reads native order, so script the exact in-memory bytes of each id).
        let retained: [UInt32] = [group.sender.keyID, 77]
        let script = retained.flatMap { id in withUnsafeBytes(of: id) { Array($0) } }
        let rotated = SenderKeySendingState.generate(channel: group.channel, retainedKeyIDs: Set(retained), using: ScriptedRandom(script: script))
        #expect(!retained.contains(rotated.keyID))
        #expect(rotated.iteration == 0)
        #expect(!rotated.needsRotation)
        #expect(rotated.signingPublicKey != group.sender.signingPublicKey)
    }

    @Test("receiving state retention: wiped 7 days after last use, only once a newer key exists")
    func retention() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let week = ProtocolLimits.senderKeyStateRetentionSeconds
        #expect(!receiver.isExpired(now: group.now + week * 10, newerKeyExists: false))
        #expect(!receiver.isExpired(now: group.now + week - 1, newerKeyExists: true))
        // §4: kept until *after* 7 days — at exactly 7 days it is still kept.
        #expect(!receiver.isExpired(now: group.now + week, newerKeyExists: true))
        #expect(receiver.isExpired(now: group.now + week + 1, newerKeyExists: true))
        let used = try receiver.decrypt(try group.send(1)[0], channel: group.channel, now: group.now + week).state
        #expect(!used.isExpired(now: group.now + week + 1, newerKeyExists: true))
        #expect(!used.isExpired(now: group.now + 2 * week, newerKeyExists: true))
        #expect(used.isExpired(now: group.now + 2 * week + 1, newerKeyExists: true))
    }

    @Test("the public index entry holds SK_sig_pub and 0x01||key_id only")
    func indexEntry() throws {
        let group = GroupFixture()
        let entry = group.sender.indexEntry
        #expect(try Base64.decode(entry.senderKeyPublic, maxEncodedLength: 255) == group.sender.signingPublicKey.rawRepresentation)
        let id = group.sender.keyID
        #expect(try Base64.decode(entry.chainKey, maxEncodedLength: 255) == [0x01, UInt8(id >> 24), UInt8(id >> 16 & 0xff), UInt8(id >> 8 & 0xff), UInt8(id & 0xff)])
    }

    @Test("a payload above 64 KiB is refused before encryption, and the state does not advance")
    func oversizedPayload() throws {
        let group = GroupFixture()
        let payload = [UInt8](repeating: 0x61, count: ProtocolLimits.maxPayloadBytes + 1)
        #expect(throws: ProtocolError.limitExceeded(.payload, limit: 65_536, actual: 65_537)) {
            try group.sender.encrypt(payload, senderDevice: group.senderDevice)
        }
        let (envelope, _) = try group.sender.encrypt([UInt8](repeating: 0x61, count: ProtocolLimits.maxPayloadBytes), senderDevice: group.senderDevice)
        #expect(envelope.ciphertext.count == ProtocolLimits.payloadCiphertextRange.upperBound)
    }
}
