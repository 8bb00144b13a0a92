import E2EECrypto
import Foundation
@_spi(StoreInternals) import E2EEKeyStore

extension PrimaryIssuer {
    /// A reset (docs/spec/protocol.md §10.16) on this device, whatever its role: a new user key
    /// and a new primary file (any old file of this installation replaced), this device kept and
    /// certified at epoch 1 (logged first), `lost` among the removed ids; then the store's record
    /// (primary under the new key, no stop) and the upload. Own devices trusted until now are not
    /// carried as legacy devices: they link again.
    /// - Throws: ``MessagingError/primaryFileUnprotected``, ``MessagingError/clockNotConfirmed``,
    ///   ``PrimaryFileError``, key store errors; a server that cannot be reached leaves the upload
    ///   for the next one.
    func reset(removing lost: [String]) async throws {
        guard let keychain, let file else { throw MessagingError.primaryFileUnprotected }
        let (clock, _) = try await advanceClock()
        if clock.readings.wentBack || clock.readings.suspect { throw MessagingError.clockNotConfirmed }
        do { try file.protect() } catch { throw MessagingError.primaryFileUnprotected }
        guard let key = try keychain.key(item: item, create: true), key.count == PrimaryFile.keyLength else {
            throw MessagingError.primaryFileUnprotected
        }
        let me = try WireUUID(text: device.deviceID.rawValue)
        var contents = PrimaryFileContents(fileID: random.bytes(count: 16), userKeySeed: SecretBytes.random(count: Ed25519.seedLength, using: random),
                                           epoch: 1, logCount: 0, trustCounter: 0, mark: clock.now, kept: [me.text],
                                           removed: lost.map { $0.lowercased() }, log: [])
        let certificate = try issue(to: me, identity: device.identity.publicIdentity, into: &contents, now: clock.now)
        try save(contents, to: file, key: key)
        let record = OwnUserKeyRecord(role: .primary, userKey: try contents.userKey().publicKey.rawRepresentation,
                                      primaryDeviceID: me.text, certificate: certificate.bytes, fileID: contents.fileID,
                                      epoch: contents.epoch, logCount: contents.logCount, trustCounter: contents.trustCounter, createdAt: clock.now)
        try await store.write { [store] db in try store.ownUserKeyStore.store(record, db) }
        try await publish(certificate)
    }

    /// The user confirmed on this primary a reset made elsewhere (§10.12): issuing stops for good
    /// (`resetElsewhere`, recorded and surfaced once).
    /// - Throws: ``MessagingError/notPrimary``, key store errors.
    func stopIssuing() async throws {
        guard var record = try await loadRecord(), record.role == .primary else { throw MessagingError.notPrimary }
        guard record.issuingStopped == nil else { return }
        record.issuingStopped = .resetElsewhere
        let stopped = record
        try await store.write { [store] db in try store.ownUserKeyStore.store(stopped, db) }
        events.publish(.linking(.issuingStopped(.resetElsewhere)))
    }
}
