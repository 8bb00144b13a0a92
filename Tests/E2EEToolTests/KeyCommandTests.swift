import E2EECrypto
import E2EEMessaging
import Foundation
import Testing

extension ToolTests {
    /// `keys bootstrap|replenish|status` run as a process against the development server.
    @Suite("keys")
    struct KeyCommandTests {
        @Test("bootstrap then bootstrap again: exit 0 both, the second says it was already done")
        func bootstrapTwice() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice")
                let first = try await harness.tool("keys", "bootstrap", "--store", alice.store)
                #expect(first.status == 0, "\(first.summary)")
                #expect(first.stdout.contains("bootstrapped: identity, signed prekey and 50 one-time prekeys uploaded"), "\(first.summary)")
                #expect(first.stderr.contains("bootstrapping keys"), "progress goes to standard error")

                let second = try await harness.tool("keys", "bootstrap", "--store", alice.store)
                #expect(second.status == 0, "\(second.summary)")
                #expect(second.stdout.contains("already bootstrapped"), "\(second.summary)")

                let third = try await harness.tool("keys", "bootstrap", "--store", alice.store, "--json")
                #expect(third.status == 0, "\(third.summary)")
                #expect(third.stderr.isEmpty, "no progress lines with --json: \(third.stderr)")
                #expect(try third.json()["already_bootstrapped"] as? Bool == true)

                // The server holds the bundle the first run uploaded: identity and 50 prekeys,
                // less the two our own checks fetched and this fetch (the server pops one each).
                let bundle = try await harness.observer().bundle(deviceID: DeviceID(alice.deviceID))
                #expect(bundle.oneTimePreKeyCount == 47)
            }
        }

        @Test("replenish after other clients fetched bundles tops the server back up to the target")
        func replenishAfterFetches() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.observer()
                for _ in 0..<5 { _ = try await bob.bundle(deviceID: DeviceID(alice.deviceID)) }
                // 50 uploaded, 5 popped by bob's fetches.

                let run = try await harness.tool("keys", "replenish", "--target", "50", "--store", alice.store, "--json")
                #expect(run.status == 0, "\(run.summary)")
                let json = try run.json()
                // The tool reads our count first (a fetch, which pops one): 44 left, 6 uploaded.
                #expect(json["server_before"] as? Int == 44, "\(run.summary)")
                #expect(json["uploaded"] as? Int == 6, "\(run.summary)")
                #expect(try await bob.bundle(deviceID: DeviceID(alice.deviceID)).oneTimePreKeyCount == 49, "50 on offer, one popped by this fetch")

                let text = try await harness.tool("keys", "replenish", "--store", alice.store)
                #expect(text.status == 0, "\(text.summary)")
                #expect(text.stdout.contains("uploaded 2 one-time prekeys"), "49 - 1 popped by the tool's own count: \(text.summary)")
            }
        }

        @Test("status reports local and server counts, signed prekey and fingerprint, as JSON too")
        func status() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let run = try await harness.tool("keys", "status", "--store", alice.store, "--json")
                #expect(run.status == 0, "\(run.summary)")
                let json = try run.json()
                #expect(json["device_id"] as? String == alice.deviceID)
                #expect(json["published_one_time_prekeys"] as? Int == 50)
                #expect(json["pending_one_time_prekeys"] as? Int == 0)
                #expect(json["server_one_time_prekeys"] as? Int == 49, "the status fetch itself pops one")
                #expect(json["signed_prekey_id"] is Int)
                let fingerprint = try #require(json["identity_fingerprint"] as? String)
                #expect(fingerprint.count == 30 && fingerprint.allSatisfy(\.isNumber))

                let text = try await harness.tool("keys", "status", "--store", alice.store)
                #expect(text.status == 0, "\(text.summary)")
                #expect(text.stdout.contains("50 published, 0 pending"), "\(text.summary)")
                #expect(text.stdout.contains("48 on the server"), "\(text.summary)")
            }
        }

        @Test("rotate makes a new signed prekey")
        func rotate() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let before = try await harness.tool("keys", "status", "--store", alice.store, "--json").json()["signed_prekey_id"] as? Int
                let run = try await harness.tool("keys", "rotate", "--store", alice.store, "--json")
                #expect(run.status == 0, "\(run.summary)")
                let after = try run.json()["signed_prekey_id"] as? Int
                #expect(after != nil && after != before)
            }
        }

        #if DEBUG
        @Test("debug publish-cert (debug builds only): the device's record carries the certificate; anything but 208 hex digits exits 2")
        func publishCertificate() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let observer = try await harness.observer()
                let listed = try await observer.bundle(deviceID: DeviceID(alice.deviceID))
                let certificate = try DeviceCertificate.issue(by: Ed25519.PrivateKey(), userID: WireUUID(text: alice.userID),
                                                              deviceID: WireUUID(text: alice.deviceID), identity: IdentityBlob(base64: listed.identityKey),
                                                              epoch: 1, notAfter: 2_000_000_000)
                let hex = certificate.bytes.map { String(format: "%02x", $0) }.joined()
                let run = try await harness.tool("debug", "publish-cert", hex, "--store", alice.store, "--json")
                #expect(run.status == 0, "\(run.summary)")
                #expect(try run.json()["certificate"] as? String == hex)
                let record = try SignedPrekeyRecord(base64: try await observer.bundle(deviceID: DeviceID(alice.deviceID)).signedPreKey)
                #expect(record.certificate == certificate)

                let short = try await harness.tool("debug", "publish-cert", String(hex.dropLast(2)), "--store", alice.store)
                #expect(short.status == 2, "\(short.summary)")
                let zeroKey = try await harness.tool("debug", "publish-cert", String(repeating: "0", count: 206) + "01", "--store", alice.store)
                #expect(zeroKey.status == 1 && zeroKey.stderr.contains("invalidKey"), "\(zeroKey.summary)")
            }
        }
        #endif
    }
}
