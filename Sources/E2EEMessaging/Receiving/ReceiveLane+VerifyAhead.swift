import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension ReceiveLane {
    /// When `queue[position]` is a prepared group message not yet verified ahead and its sender
    /// key is here, verifies in parallel the signatures of it and of every later message of
    /// the queue under the same key: verification needs only the key's public half, so it need
    /// not wait for the serial ratchet step (which then takes the proofs).
    func verifyAhead(_ queue: inout [IncomingMessage], at position: Int, lane: LaneState) async throws {
        guard let prepared = queue[position].prepared, !prepared.signatureChecked, let first = prepared.groupEnvelope else { return }
        let channelID = queue[position].channelID
        let address = SenderKeyAddress(channelID: channelID.rawValue, senderDeviceID: first.senderDevice.text, keyID: first.keyID)
        guard let key = try await lane.senderKey(address) else { return }
        var indices: [Int] = []
        var envelopes: [GroupEnvelope] = []
        for index in position..<queue.count {
            guard let prepared = queue[index].prepared, !prepared.signatureChecked, let envelope = prepared.groupEnvelope,
                  queue[index].channelID == channelID, envelope.keyID == first.keyID, envelope.senderDevice == first.senderDevice else { continue }
            indices.append(index)
            envelopes.append(envelope)
        }
        let proofs = await ContentPreparation.verify(envelopes, channel: key.state.channel, signingKey: key.state.signingPublicKey)
        for (index, proof) in zip(indices, proofs) {
            queue[index].prepared?.verifiedGroup = proof
            queue[index].prepared?.signatureChecked = true
        }
    }
}
