import Foundation
import Testing

extension ToolTests {
    /// The walk-through of docs/e2ee-tool.md "Linking a laptop" with two real tool processes:
    /// Bob registers with a user key, runs `link accept` on his phone and `link start` on a new
    /// login; the test types each process's printed code into the other (docs/spec/protocol.md §10.11).
    @Suite("link")
    struct LinkCommandTests {
        @Test("register --user-key, link accept and link start typing each other's codes: the laptop is linked and takes the phone's trust")
        func walkThrough() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await Self.phoneAndLaptop(harness)

                let phone = try harness.startTyping("link", "accept", "--store", phoneStore, "--timeout", "120")
                let (newDevice, laptopCode, phoneCode) = try await Self.typeCodes(phone: phone) {
                    try harness.startTyping("link", "start", "--store", laptop.store, "--timeout", "120")
                }
                #expect(phoneCode != laptopCode)

                let laptopEnd = await newDevice.finish(limit: .seconds(90))
                let phoneEnd = await phone.finish(limit: .seconds(90))
                #expect(laptopEnd.exit?.status == 0, "\(laptopEnd.summary)")
                #expect(phoneEnd.exit?.status == 0, "\(phoneEnd.summary)")
                #expect(laptopEnd.stderr.contains("took ") && laptopEnd.stderr.contains("trust decisions"), "\(laptopEnd.summary)")

                let status = try await harness.tool("link", "status", "--store", laptop.store, "--json")
                #expect(status.status == 0, "\(status.summary)")
                #expect(try status.json()["role"] as? String == "linked", "\(status.summary)")
            }
        }

        @Test("a wrong code typed into the primary: both ends exit 14 (link_failed)")
        func wrongCode() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await Self.phoneAndLaptop(harness)
                let phone = try harness.startTyping("link", "accept", "--store", phoneStore, "--timeout", "120")
                #expect(await phone.wait { $0.stderr.contains("waiting for a request") })
                let newDevice = try harness.startTyping("link", "start", "--store", laptop.store, "--timeout", "120")
                let laptopCode = try #require(await Self.code(printedBy: newDevice), "\(newDevice.output.value.summary)")
                #expect(await phone.wait { $0.stderr.contains("type the code your other device shows") })
                phone.type(laptopCode == "000000" ? "000001" : "000000")
                let phoneEnd = await phone.finish(limit: .seconds(60))
                let laptopEnd = await newDevice.finish(limit: .seconds(60))
                #expect(phoneEnd.exit?.status == 14, "\(phoneEnd.summary)")
                #expect(laptopEnd.exit?.status == 14, "\(laptopEnd.summary)")
            }
        }

        @Test("account login on an account with a key says the new device must be linked; one without a key does not")
        func loginSaysItMustLink() async throws {
            try await ToolHarness.with { harness in
                _ = try await Self.phoneAndLaptop(harness)
                let store = harness.storePath("bob-tablet")
                let run = try await harness.tool("account", "login", "--server", harness.server.baseURL, "--username", "bob",
                                                 "--store", store, "--kdf", "interactive", "--json")
                #expect(run.status == 0, "\(run.summary)")
                #expect(try run.json()["must_link"] as? Bool == true)
                let text = try await harness.tool("account", "login", "--server", harness.server.baseURL, "--username", "bob",
                                                  "--store", harness.storePath("bob-desktop"), "--kdf", "interactive")
                #expect(text.stdout.contains("link this device to the primary (e2ee-tool link start)"), "\(text.summary)")
                let alice = try await harness.tool("account", "register", "--server", harness.server.baseURL, "--username", "alice",
                                                   "--store", harness.storePath("alice"), "--kdf", "interactive", "--json")
                #expect(try alice.json()["must_link"] as? Bool == false)
            }
        }

        /// Bob registers his phone with a user key and logs a laptop in, both with keys; returns
        /// the phone's store and the laptop.
        static func phoneAndLaptop(_ harness: ToolHarness) async throws -> (phoneStore: String, laptop: ToolUser) {
            let phoneStore = harness.storePath("bob-phone")
            let register = try await harness.tool("account", "register", "--server", harness.server.baseURL, "--username", "bob",
                                                  "--store", phoneStore, "--kdf", "interactive", "--user-key")
            guard register.status == 0 else { throw HarnessError.toolFailed(register.summary) }
            let keys = try await harness.tool("keys", "bootstrap", "--store", phoneStore)
            guard keys.status == 0 else { throw HarnessError.toolFailed(keys.summary) }
            return (phoneStore, try await UserKeyCommandTests.login(harness, "bob", store: "bob-laptop"))
        }

        /// The ceremony as the walk-through types it: waits until `phone` (a `link accept`)
        /// listens, starts the new device's `link start` with `startNewDevice`, and types each
        /// process's code into the other. Returns the new device's process and both codes; the
        /// link then runs on.
        static func typeCodes(phone: LiveToolProcess, startNewDevice: () throws -> LiveToolProcess) async throws
            -> (newDevice: LiveToolProcess, laptopCode: String, phoneCode: String) {
            #expect(await phone.wait { $0.stderr.contains("waiting for a request") }, "\(phone.output.value.summary)")
            let newDevice = try startNewDevice()
            let laptopCode = try #require(await code(printedBy: newDevice), "\(newDevice.output.value.summary)")
            #expect(await phone.wait { $0.stderr.contains("type the code your other device shows") }, "\(phone.output.value.summary)")
            phone.type(laptopCode)
            let phoneCode = try #require(await code(printedBy: phone), "\(phone.output.value.summary)")
            newDevice.type(phoneCode)
            return (newDevice, laptopCode, phoneCode)
        }

        /// The six-digit code a `link` process printed (`code: 123456`).
        static func code(printedBy process: LiveToolProcess) async -> String? {
            _ = await process.wait(limit: .seconds(60)) { output in output.lines.contains { $0.hasPrefix("code: ") } }
            return process.output.value.lines.first { $0.hasPrefix("code: ") }.map { String($0.dropFirst("code: ".count)) }
        }
    }
}
