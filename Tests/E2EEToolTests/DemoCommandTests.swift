import Foundation
import Testing

extension ToolTests {
    /// `e2ee-tool demo` as the README runs it: its own server in-process, four devices.
    @Suite("demo")
    struct DemoCommandTests {
        @Test("demo exits 0; each laptop is linked with two codes, no device waits for approval, and every device reads the DM and the group, the same messages in the same order as sent")
        func demoReadsOnEveryDevice() async throws {
            let directory = FileManager.default.temporaryDirectory
            let json = try await ToolProcess.run(["demo", "--json"], environment: [:], in: directory)
            #expect(json.status == 0, "\(json.summary)")
            let report = try json.json()
            #expect(report["agreed"] as? Bool == true, "\(json.summary)")
            #expect((report["problems"] as? [Any])?.isEmpty == true)
            let sent = try #require(report["sent"] as? [[String: Any]])
            let reading = try #require(report["reading"] as? [[String: Any]])
            #expect(reading.compactMap { $0["device"] as? String } == ["alice/phone", "alice/laptop", "bob/phone", "bob/laptop"])
            for device in reading {
                let channels = try #require(device["channels"] as? [[String: Any]])
                for channel in channels {
                    let channelID = try #require(channel["channel_id"] as? String)
                    let read = (channel["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
                    let expected = sent.filter { $0["channel_id"] as? String == channelID }.compactMap { $0["text"] as? String }
                    #expect(read == expected, "\(device["device"] ?? "?") in \(channel["kind"] ?? "?")")
                    #expect(!read.isEmpty)
                }
            }

            let text = try await ToolProcess.run(["demo"], environment: [:], in: directory)
            #expect(text.status == 0, "\(text.summary)")
            #expect(text.stdout.contains("bob/laptop reads (after catching up):"), "\(text.summary)")
            #expect(text.stdout.contains("all 4 devices read the same 5 messages in the same order."), "\(text.summary)")
            #expect(text.stderr.contains("alice: linking the laptop to the phone with two codes"), "\(text.summary)")
            #expect(text.stderr.contains("no device waited for anyone's approval"), "\(text.summary)")
        }
    }
}
