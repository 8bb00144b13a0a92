import ArgumentParser
import E2EEKeyStore
import E2EEMessaging
import Foundation

/// `e2ee-tool user-key take-over --from-store PATH [--ignore-another-key]`
/// (docs/spec/protocol.md §10.15): a new login on this installation takes over from the
/// earlier login whose store held the user key.
struct UserKeyTakeOverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "take-over",
        abstract: "After a new login on this installation: take over as primary from the earlier login's store (its primary file beside it).",
        discussion: """
            Run it on the new login's store (--store), naming the old login's store with --from-store; both \
            open with the same passphrase (the primary file's key is derived from it). The old store's trust \
            decisions and history are copied into the new store here, nothing is sent but the removal: the \
            primary file moves beside the new store at a new epoch, the old device is removed (its record \
            unlinked by the new epoch, deleted on the server) and every linked device gets its new \
            certificate from this device, its new primary. When our own listing shows a current certificate \
            under another key (a reset made elsewhere, or a device the server made), nothing is done: the \
            devices of ours carrying it are named and the command exits 17 (linking_required) — link this \
            device to the new primary with link start, or, sure that no reset was made, run again with \
            --ignore-another-key. An old store that is not the primary exits 15 (not_primary).
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("from-store"), help: ArgumentHelp("The store of the earlier login on this installation.", valueName: "path"))
    var fromStore: String

    @Flag(name: .customLong("ignore-another-key"), help: "Go on although another key is listed (only when sure that no reset was made).")
    var ignoreAnotherKey = false

    func run() async throws {
        let context = ToolContext(options: options)
        let current = try context.openExistingStoreWithPassphrase()
        let passphrase = current.2
        let oldURL = URL(fileURLWithPath: fromStore)
        let oldStore: KeyStore
        do {
            guard FileManager.default.fileExists(atPath: oldURL.path) else { throw ToolError(.notFound, "no store at \(oldURL.path)") }
            guard oldURL.standardizedFileURL.path != current.1.standardizedFileURL.path else {
                throw ToolError(.usage, "--from-store names this login's own store: name the earlier login's")
            }
            oldStore = try KeyStore.open(at: oldURL, passphrase: passphrase)
        } catch let error as ToolError {
            try? current.0.close()
            throw error
        } catch KeyStoreError.wrongKey {
            try? current.0.close()
            throw ToolError(.wrongPassphrase, "the store at \(oldURL.path) does not open with this store's passphrase (both must share it: the primary file's key is derived from it)")
        } catch {
            try? current.0.close()
            throw ErrorClassifier.classify(error)
        }
        defer { try? oldStore.close() }
        let opened = try await context.openAccount(configuration: AccountConfiguration(), in: current)
        let ignoring = ignoreAnotherKey
        let (outcome, status) = try await opened.using { account in
            let outcome = try await account.takeOverPrimary(from: oldStore, ignoringAnotherKey: ignoring)
            return (outcome, try await account.ownUserKey())
        }
        let output = TakeOverOutput(outcome, status: OwnUserKeyOutput(status, device: opened.account.deviceID))
        try context.console.result(output) { output.lines.joined(separator: "\n") }
        if case .anotherKeyListed = outcome {
            throw ToolError(.linkingRequired, "another key is listed for our user: link this device to the new primary (link start), or run again with --ignore-another-key if sure that no reset was made",
                            resultWritten: true)
        }
    }
}

/// What `user-key take-over` prints: text lines, or one JSON object.
struct TakeOverOutput: Encodable {
    /// `took_over` or `another_key_listed`.
    let outcome: String
    /// The old device, removed (on `took_over`).
    let removed: String?
    /// The new epoch (on `took_over`).
    let epoch: UInt32?
    /// Fingerprints of the other keys listed (on `another_key_listed`).
    let otherKeys: [String]
    /// Kept devices carrying one (on `another_key_listed`; empty: none does).
    let carriers: [String]
    /// This device's standing under our key afterwards.
    let status: OwnUserKeyOutput

    enum CodingKeys: String, CodingKey { case outcome, removed, epoch, otherKeys = "other_keys", carriers, status }

    init(_ outcome: TakeOverOutcome, status: OwnUserKeyOutput) {
        self.status = status
        switch outcome {
        case .tookOver(let removed, let epoch):
            self.outcome = "took_over"
            self.removed = removed.rawValue
            self.epoch = epoch
            otherKeys = []
            carriers = []
        case .anotherKeyListed(let keys, let carriers):
            self.outcome = "another_key_listed"
            removed = nil
            epoch = nil
            otherKeys = keys.map(\.fingerprint)
            self.carriers = carriers.map(\.rawValue)
        }
    }

    /// The text form.
    var lines: [String] {
        switch outcome {
        case "took_over":
            return ["took over as primary: device \(removed ?? "?") removed, epoch \(epoch.map(String.init) ?? "?")"] + status.lines
        default:
            var lines = ["* STOPPED: our own listing shows a current certificate under another key (\(otherKeys.joined(separator: ", ")))"]
            lines.append(carriers.isEmpty ? "no device of ours carries it (a fresh login's reset, or a device the server made)"
                                          : "carried by our device(s): \(carriers.joined(separator: ", ")) — a reset made there?")
            lines.append("link this device to the new primary (link start), or run again with --ignore-another-key if sure that no reset was made")
            return lines
        }
    }
}
