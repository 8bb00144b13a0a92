import E2EECrypto
import E2EEDevServer
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.10, §10.22: link messages travel between devices of one user as
    /// link envelopes in their devices channel, over the pairwise ratchet; each is handed to the
    /// account's linking once, only from our own user, only in our own link channels, which the
    /// app never sees.
    @Suite("Link messages")
    struct LinkMessageTests {
        static let request = LinkPlaintext.request(requestID: WireUUIDs.make(0x51), commit: [UInt8](repeating: 7, count: 32))

        @Test("a request from a new login reaches the primary over their ratchet, once; the devices channel is never shown")
        func requestArrivesOnce() async throws {
            try await MessagingHarness.with { harness in
                let phone = try await harness.register("bob")
                let laptop = try await harness.login("bob")
                let channelID = try #require(try await phone.devicesChannel(create: true))
                #expect(try await laptop.devicesChannel(create: false) == channelID, "the new login finds the channel its user made")
                #expect(try await phone.devicesChannel(create: true) == channelID, "made once")

                let inbox = Inbox(phone.linkMessages())
                try await laptop.sendLinkMessage(Self.request, to: phone.deviceID, in: channelID)
                await laptop.waitForOutbox()
                try await phone.sync()
                let opened = try #require(await inbox.next())
                #expect(opened.plaintext == Self.request)
                #expect(opened.senderDeviceID == laptop.deviceID)
                #expect(opened.channel == .devices && opened.channelID == channelID)

                // The same envelope posted again (a replay) is a duplicate: never handed over twice.
                let reader = try await harness.reader(of: phone)
                let posted = try #require(try await harness.serverMessages(channelID, as: reader).last)
                _ = try await harness.server.faults.repost(messageID: posted.id.rawValue, channelID: channelID.rawValue)
                try await phone.sync()
                #expect(await inbox.next(within: .milliseconds(300)) == nil, "a replayed link message moved something")

                for account in [phone, laptop] {
                    #expect(try await account.channels().contains { $0.id == channelID } == false, "a link channel is shown to the app")
                    #expect(try await account.refreshChannels().contains { $0.id == channelID } == false)
                    #expect(try await account.channelRequests().isEmpty, "a link channel became a request")
                }
                await phone.shutdown()
                await laptop.shutdown()
            }
        }

        @Test("K22: a link envelope from another user (in our devices channel), or in a link-shaped channel another user made, is never handed over")
        func othersCannotSpeak() async throws {
            try await MessagingHarness.with { harness in
                let phone = try await harness.register("bob")
                let laptop = try await harness.login("bob")
                let mallory = try await harness.register("mallory")
                let channelID = try #require(try await phone.devicesChannel(create: true))
                let inbox = Inbox(phone.linkMessages())

                // Mallory joins Bob's devices channel and posts a link envelope she sealed over
                // her own X3DH with Bob's phone: it opens, but it is not from Bob's user.
                let malloryServer = try await harness.reader(of: mallory)
                try await malloryServer.joinChannel(id: channelID)
                let forged = try await Self.seal(Self.request, from: mallory, to: phone)
                _ = try await malloryServer.sendMessage(channelID: channelID, OutgoingMessage(
                    content: forged.content(), contentType: LinkEnvelope.contentType, protocolVersion: 2, senderDeviceID: mallory.deviceID))

                // Mallory makes a link-shaped channel named like ours and adds Bob; the laptop
                // (following the server) sends a link message there.
                let foreign = try await malloryServer.createLinkChannel(name: LinkChannel.devicesName)
                try await malloryServer.addMember(channelID: foreign.id, userID: phone.userID)
                _ = try await laptop.refreshAllChannels()
                try await laptop.sendLinkMessage(.request(requestID: WireUUIDs.make(0x52), commit: [UInt8](repeating: 8, count: 32)),
                                                 to: phone.deviceID, in: foreign.id)
                // And one in the real devices channel, which must arrive.
                try await laptop.sendLinkMessage(Self.request, to: phone.deviceID, in: channelID)
                await laptop.waitForOutbox()

                _ = try await phone.refreshChannels()
                try await phone.sync()
                let first = try #require(await inbox.next())
                #expect(first.senderDeviceID == laptop.deviceID && first.channelID == channelID && first.plaintext == Self.request)
                #expect(await inbox.next(within: .milliseconds(500)) == nil, "a link message from another user or another user's channel was handed over")
                #expect(try await phone.devicesChannel(create: false) == channelID, "a channel another user made is never ours")
                #expect(try await phone.channels().contains { $0.id == foreign.id } == false, "an anomaly is shown as a channel")
                await phone.shutdown()
                await laptop.shutdown()
                await mallory.shutdown()
            }
        }

        /// A link envelope `from` seals to `to` over its own pairwise session (any user can run
        /// X3DH with anyone's published bundle).
        static func seal(_ plaintext: LinkPlaintext, from: Account, to: Account) async throws -> LinkEnvelope {
            let composer = await from.composer
            let target = try #require(try await from.directory.devices(of: to.userID, refresh: true).first { $0.deviceID == to.deviceID })
            var encryptor = PairwiseEncryptor(try await composer.sessions.prepare([target]), random: composer.random)
            return try LinkEnvelope.seal(plaintext, senderDevice: try WireUUID(text: from.deviceID.rawValue),
                                         recipientDevice: try WireUUID(text: to.deviceID.rawValue)) { device, bytes in
                try encryptor.encrypt(device, bytes)
            }
        }
    }
}

/// Reads an account's link messages one at a time, with a time limit.
private final class Inbox: @unchecked Sendable {
    private var iterator: AsyncStream<OpenedLinkMessage>.AsyncIterator

    init(_ stream: AsyncStream<OpenedLinkMessage>) {
        iterator = stream.makeAsyncIterator()
    }

    /// The next message, or nil when none comes within `limit`.
    func next(within limit: Duration = .seconds(5)) async -> OpenedLinkMessage? {
        let box = self
        return await withTaskGroup(of: OpenedLinkMessage?.self) { group in
            group.addTask { await box.iterator.next() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

enum WireUUIDs {
    /// An id of sixteen equal bytes.
    static func make(_ byte: UInt8) -> WireUUID {
        guard let id = try? WireUUID(bytes: [UInt8](repeating: byte, count: 16)) else { preconditionFailure("sixteen bytes are an id") }
        return id
    }
}
