import Foundation
import Testing

extension ToolTests {
    /// Our own user key through the tool (docs/spec/protocol.md §10.12): `account register
    /// --user-key`, `user-key create`, `user-key status`, as processes against the dev server.
    @Suite("own user key")
    struct OwnUserKeyCommandTests {
        @Test("register --user-key: the device is the primary at epoch 1, its file beside the store; a second create fails")
        func registerWithKey() async throws {
            try await ToolHarness.with { harness in
                let store = harness.storePath("bob")
                let register = try await harness.tool("account", "register", "--server", harness.server.baseURL, "--username", "bob",
                                                      "--store", store, "--kdf", "interactive", "--user-key")
                #expect(register.status == 0, "\(register.summary)")
                #expect(register.stdout.contains("user key created"), "\(register.summary)")
                let keys = try await harness.tool("keys", "bootstrap", "--store", store)
                #expect(keys.status == 0, "\(keys.summary)")
                let status = try await harness.tool("user-key", "status", "--store", store, "--json")
                #expect(status.status == 0, "\(status.summary)")
                let json = try status.json()
                #expect(json["role"] as? String == "primary" && json["epoch"] as? Int == 1, "\(status.summary)")
                #expect((json["key"] as? String)?.count == 64 && json["not_after"] is String, "\(status.summary)")
                #expect(json["primary"] as? String == json["device_id"] as? String)
                #expect(FileManager.default.fileExists(atPath: store + ".primary/primary-file"))
                #expect(FileManager.default.fileExists(atPath: store + ".primary/CACHEDIR.TAG"))
                let text = try await harness.tool("user-key", "status", "--store", store)
                #expect(text.stdout.contains(": primary") && text.stdout.contains("epoch 1"), "\(text.summary)")

                let again = try await harness.tool("user-key", "create", "--store", store)
                #expect(again.status == 1, "\(again.summary)")
                #expect(again.stderr.contains("already holds the user key"), "\(again.summary)")
            }
        }

        @Test("user-key create on an account without a key makes it the primary; status before says no key")
        func createLater() async throws {
            try await ToolHarness.with { harness in
                let carol = try await harness.register("carol", bootstrap: true)
                let before = try await harness.tool("user-key", "status", "--store", carol.store, "--json")
                #expect(before.status == 0, "\(before.summary)")
                #expect(try before.json()["role"] as? String == "no_key", "\(before.summary)")
                let create = try await harness.tool("user-key", "create", "--store", carol.store, "--json")
                #expect(create.status == 0, "\(create.summary)")
                #expect(try create.json()["role"] as? String == "primary", "\(create.summary)")
                // The record the server lists now carries the certificate: the status agrees after a reopen.
                let after = try await harness.tool("user-key", "status", "--store", carol.store, "--json")
                #expect(try after.json()["epoch"] as? Int == 1, "\(after.summary)")
            }
        }
    }
}
