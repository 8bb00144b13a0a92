import E2EEDevServer
import Foundation
import Testing

extension ToolTests {
    /// Each failure ends with its documented exit code and a clear message.
    @Suite("exit codes")
    struct FailureExitCodeTests {
        @Test("wrong passphrase: exit 3, says so, and the store still opens with the right one")
        func wrongPassphrase() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let wrong = try await harness.tool("keys", "status", "--store", alice.store, passphrase: "not the passphrase")
                #expect(wrong.status == 3, "\(wrong.summary)")
                #expect(wrong.stderr.contains("wrong passphrase for the store at \(alice.store)"), "\(wrong.summary)")
                #expect(!wrong.stderr.contains("not the passphrase"), "the passphrase is never echoed")

                let json = try await harness.tool("keys", "status", "--store", alice.store, "--json", passphrase: "not the passphrase")
                #expect(json.status == 3)
                let error = try #require(try json.json()["error"] as? [String: Any])
                #expect(error["exit_code"] as? Int == 3)
                #expect(error["name"] as? String == "wrong_passphrase")

                let right = try await harness.tool("keys", "status", "--store", alice.store)
                #expect(right.status == 0, "\(right.summary)")
            }
        }

        @Test("no passphrase and no terminal: exit 2 naming the variable; replenish before bootstrap: exit 1 saying so")
        func missingPassphrase() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice")
                let run = try await harness.tool("keys", "status", "--store", alice.store, passphrase: nil)
                #expect(run.status == 2, "\(run.summary)")
                #expect(run.stderr.contains("E2EE_STORE_PASSPHRASE is not set"), "\(run.summary)")

                let early = try await harness.tool("keys", "replenish", "--store", alice.store)
                #expect(early.status == 1, "\(early.summary)")
                #expect(early.stderr.contains("run keys bootstrap first"), "\(early.summary)")
            }
        }

        @Test("server down: exit 4 for a store whose server stopped, and for a register that leaves no store behind")
        func serverDown() async throws {
            try await ToolHarness.with { harness in
                // A second server of our own, stopped after alice registered on it: its port is closed.
                let doomed = try await DevServer.start(configuration: .testing())
                let store = harness.storePath("alice-doomed")
                let register = try await harness.tool("account", "register", "--server", doomed.baseURL, "--username", "alice",
                                                      "--store", store, "--kdf", "interactive")
                #expect(register.status == 0, "\(register.summary)")
                await doomed.shutdown()

                let channels = try await harness.tool("channels", "--store", store)
                #expect(channels.status == 4, "\(channels.summary)")
                #expect(channels.stderr.contains("could not be reached"), "\(channels.summary)")

                let bootstrap = try await harness.tool("keys", "bootstrap", "--store", store, "--json")
                #expect(bootstrap.status == 4, "\(bootstrap.summary)")
                #expect((try bootstrap.json()["error"] as? [String: Any])?["name"] as? String == "server_unreachable")

                let fresh = harness.storePath("bob-nowhere")
                let nowhere = try await harness.tool("account", "register", "--server", doomed.baseURL, "--username", "bob",
                                                     "--store", fresh, "--kdf", "interactive")
                #expect(nowhere.status == 4, "\(nowhere.summary)")
                #expect(!FileManager.default.fileExists(atPath: fresh), "a store the failed register created is removed")
            }
        }

        @Test("bad credentials: exit 5")
        func badCredentials() async throws {
            try await ToolHarness.with { harness in
                _ = try await harness.register("alice")
                let run = try await harness.tool("account", "login", "--server", harness.server.baseURL, "--username", "alice",
                                                 "--store", harness.storePath("alice-laptop"), "--kdf", "interactive", password: "wrong password")
                #expect(run.status == 5, "\(run.summary)")
                #expect(run.stderr.contains("authentication failed"), "\(run.summary)")
                #expect(!run.stderr.contains("wrong password"))
            }
        }

        @Test("bad arguments: exit 2 from the argument parser")
        func badArguments() async throws {
            try await ToolHarness.with { harness in
                let unknownCommand = try await harness.tool("frobnicate")
                #expect(unknownCommand.status == 2, "\(unknownCommand.summary)")
                let unknownOption = try await harness.tool("keys", "status", "--no-such-option")
                #expect(unknownOption.status == 2, "\(unknownOption.summary)")
                #expect(unknownOption.stderr.contains("--no-such-option"), "\(unknownOption.summary)")
                let badValue = try await harness.tool("keys", "replenish", "--target", "0")
                #expect(badValue.status == 2, "\(badValue.summary)")
                #expect(badValue.stderr.contains("--target must be between 1 and 1000"), "\(badValue.summary)")
                let badServer = try await harness.tool("account", "register", "--server", "ftp://example", "--username", "x")
                #expect(badServer.status == 2, "\(badServer.summary)")
                let help = try await harness.tool("--help")
                #expect(help.status == 0)
                #expect(help.stdout.contains("keys"))
            }
        }

        @Test("no store: exit 6; bad arguments of history, listen and keys replenish --watch: exit 2")
        func notFoundAndBadReceivingArguments() async throws {
            try await ToolHarness.with { harness in
                let missing = try await harness.tool("keys", "status", "--store", harness.storePath("nobody"))
                #expect(missing.status == 6, "\(missing.summary)")
                #expect(missing.stderr.contains("no store at"), "\(missing.summary)")
                #expect(!FileManager.default.fileExists(atPath: harness.storePath("nobody")), "a missing store is not created")

                let noDefault = try await harness.tool("channels")
                #expect(noDefault.status == 6, "\(noDefault.summary)")

                let noStore = try await harness.tool("listen", "--store", harness.storePath("nobody"))
                #expect(noStore.status == 6, "\(noStore.summary)")
                for arguments in [["history"], ["history", "c", "--limit", "0"], ["listen", "--count", "0"], ["listen", "--timeout", "-1"],
                                  ["keys", "replenish", "--timeout", "5"]] {
                    let run = try await ToolProcess.run(arguments, environment: harness.environment(), in: harness.directory)
                    #expect(run.status == 2, "\(arguments): \(run.summary)")
                }
            }
        }

        @Test("the default store: register without --store, then commands find it; exit-codes lists every code")
        func defaultStoreAndExitCodes() async throws {
            try await ToolHarness.with { harness in
                let register = try await harness.tool("account", "register", "--server", harness.server.baseURL, "--username", "Carol",
                                                      "--kdf", "interactive", "--json")
                #expect(register.status == 0, "\(register.summary)")
                let port = harness.server.port
                let expected = harness.directory.appendingPathComponent("data/e2ee-tool/127.0.0.1_\(port)-carol.sqlite").path
                #expect(try register.json()["store"] as? String == expected)
                let bootstrap = try await harness.tool("keys", "bootstrap")
                #expect(bootstrap.status == 0, "the only store in the data directory is used: \(bootstrap.summary)")

                let codes = try await ToolProcess.run(["exit-codes", "--json"], environment: [:], in: harness.directory)
                #expect(codes.status == 0)
                let list = try #require(try JSONSerialization.jsonObject(with: Data(codes.stdout.utf8)) as? [[String: Any]])
                let numbers = list.compactMap { $0["code"] as? Int }
                #expect(numbers == Array(0...6) + Array(8...17), "7 is retired and not reused")
                let help = try await ToolProcess.run(["help", "exit-codes"], environment: [:], in: harness.directory)
                #expect(help.status == 0)
                #expect(help.stdout.contains("wrong_passphrase"), "\(help.summary)")
            }
        }
    }
}
