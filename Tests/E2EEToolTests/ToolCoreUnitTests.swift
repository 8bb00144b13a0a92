import E2EEKeyStore
import E2EEMessaging
@testable import E2EEToolCore
import Foundation
import Testing

/// The tool's pure parts, in process: error classification, store naming, server addresses.
@Suite("Tool core")
struct ToolCoreUnitTests {
    @Test("errors of the layers below map to their documented exit codes")
    func classification() {
        #expect(ErrorClassifier.classify(ServerError.transport("ConnectError")).code == .serverUnreachable)
        #expect(ErrorClassifier.classify(ServerError.unauthenticated(detail: "bad")).code == .authentication)
        #expect(ErrorClassifier.classify(ServerError.sessionEnded).code == .authentication)
        #expect(ErrorClassifier.classify(ServerError.notFound(detail: nil)).code == .notFound)
        #expect(ErrorClassifier.classify(ServerError.conflict(detail: "Username already taken")).code == .serverRefused)
        #expect(ErrorClassifier.classify(KeyStoreError.wrongKey).code == .wrongPassphrase)
        #expect(ErrorClassifier.classify(MessagingError.noAccount).code == .notFound)
        #expect(ErrorClassifier.classify(MessagingError.unknownChannel("c")).code == .notFound)
        #expect(ErrorClassifier.classify(MessagingError.noRecipients(channelID: "c")).code == .notSent)
        #expect(ErrorClassifier.classify(ToolError(.notAvailableYet, "x")).code == .notAvailableYet)
        #expect(ErrorClassifier.classify(CocoaError(.fileNoSuchFile)).code == .failure)
    }

    @Test("exit codes are distinct, named and all in the table")
    func exitCodeTable() {
        let codes = ToolExitCode.allCases
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        #expect(Set(codes.map(\.name)).count == codes.count)
        for code in codes { #expect(ToolExitCode.table.contains(code.name)) }
        #expect(ToolExitCode.usage.rawValue == 2)
    }

    @Test("default store names: host, port and lower-cased user, nothing that escapes the folder")
    func storeNames() throws {
        #expect(StoreLocation.defaultFileName(serverURL: "http://127.0.0.1:8000", username: "Alice") == "127.0.0.1_8000-alice.sqlite")
        #expect(StoreLocation.defaultFileName(serverURL: "https://chat.example.org", username: "../../etc/x") == "chat.example.org-.._.._etc_x.sqlite")
        let location = StoreLocation(environment: ["XDG_DATA_HOME": "/tmp/xdg", "HOME": "/home/u"])
        #expect(location.dataDirectory.path == "/tmp/xdg/e2ee-tool")
        #expect(StoreLocation(environment: ["HOME": "/home/u"]).dataDirectory.path == "/home/u/.local/share/e2ee-tool")
        #expect(StoreLocation(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]).dataDirectory.path == "/home/u/.local/share/e2ee-tool")
    }

    @Test("server addresses are normalised; anything but http(s)://host[:port] is a usage error")
    func serverAddresses() throws {
        #expect(try ServerAddress.normalise("http://127.0.0.1:8000/") == "http://127.0.0.1:8000")
        #expect(try ServerAddress.normalise("https://chat.example.org/api/v1") == "https://chat.example.org")
        for bad in ["ftp://host", "127.0.0.1:8000", "http://", "http://host/path", "http://user@host"] {
            #expect(throws: ToolError.self, "\(bad)") { try ServerAddress.normalise(bad) }
        }
    }

    @Test("safety-number digits are shown in groups of five")
    func digitGroups() {
        #expect(DigitGroups.format("123456789012") == "12345 67890 12")
        #expect(DigitGroups.format("") == "")
    }
}
