import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

extension TransportTests {
    /// `GET /devices` and `DELETE /devices/{id}` (docs/spec/server-api.md §10).
    @Suite("Device routes")
    struct DeviceRouteTests {
        @Test func listsTheAccountsDevices() async throws {
            try await TransportHarness.with { harness in
                let (phone, phoneTokens) = try await harness.registered("alice")
                let laptop = harness.client()
                let laptopTokens = try await laptop.login(username: "alice", password: "password123", deviceName: "laptop")
                _ = try await harness.registered("bob")
                let devices = try await phone.devices()
                #expect(devices.map(\.id) == [phoneTokens.deviceID, laptopTokens.deviceID], "oldest first, only alice's")
                #expect(devices.map(\.name) == ["phone", "laptop"])
                #expect(devices.map(\.isCurrent) == [true, false])
                #expect(devices.allSatisfy { $0.createdAt != nil })
                #expect(try await laptop.devices().map(\.isCurrent) == [false, true])
            }
        }

        @Test func deletingADeviceEndsItsSessionAndRemovesItsBundle() async throws {
            try await TransportHarness.with { harness in
                let (phone, phoneTokens) = try await harness.registered("alice")
                let laptop = harness.client()
                let laptopTokens = try await laptop.login(username: "alice", password: "password123", deviceName: "laptop")
                try await laptop.uploadKeys(KeyBundleUpload(deviceID: laptopTokens.deviceID, identityKey: "ik", signedPreKey: "spk",
                                                            signedPreKeySignature: "sig", oneTimePreKeys: ["o1"]))
                #expect(try await phone.bundles(userID: phoneTokens.userID).map(\.deviceID) == [laptopTokens.deviceID])

                try await phone.deleteDevice(id: laptopTokens.deviceID)
                #expect(try await phone.devices().map(\.id) == [phoneTokens.deviceID])
                #expect(try await phone.bundles(userID: phoneTokens.userID).isEmpty)
                // Its access and refresh tokens went with it: the laptop's session ends cleanly.
                await expectServerError(.sessionEnded) { try await laptop.channels() }
                #expect(await laptop.session.outcome == .ended)
            }
        }

        @Test func unknownOrForeignDevicesAreNotFound() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let (_, bobTokens) = try await harness.registered("bob")
                #expect(await errorKind { try await alice.deleteDevice(id: bobTokens.deviceID) } == "notFound")
                #expect(await errorKind { try await alice.deleteDevice(id: "00000000-0000-0000-0000-000000000000") } == "notFound")
                #expect(await errorKind { try await alice.deleteDevice(id: "not a uuid/..") } == "validation")
            }
        }
    }
}
