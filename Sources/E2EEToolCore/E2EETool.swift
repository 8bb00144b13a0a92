import ArgumentParser

/// `e2ee-tool`: the command-line client of E2EECore — accounts, keys, identities, channels,
/// sending, history, listening, the conformance vectors and an in-process demo. A thin layer over the public API
/// of `E2EEMessaging` and `E2EETransport`: it adds no protocol logic of its own.
public struct E2EETool: AsyncParsableCommand {
    /// The command tree.
    public static let configuration = CommandConfiguration(
        commandName: "e2ee-tool",
        abstract: "End-to-end-encrypted messaging from the command line.",
        discussion: """
            The store passphrase comes from E2EE_STORE_PASSPHRASE or a prompt, the account password \
            from E2EE_PASSWORD or a prompt: never from an argument. Exit codes: e2ee-tool exit-codes.
            """,
        subcommands: subcommands
    )

    /// Every command; debug builds add the test hooks (`debug`), which release builds do not have.
    private static var subcommands: [any ParsableCommand.Type] {
        let commands: [any ParsableCommand.Type] = [
            AccountCommand.self, KeysCommand.self, SafetyNumberCommand.self, DevicesCommand.self, UserKeyCommand.self, LinkCommand.self, TransferCommand.self, ClockCommand.self, ChannelsCommand.self,
            SendCommand.self, DeleteCommand.self, OutboxCommand.self, HistoryCommand.self, ListenCommand.self, VectorsCommand.self, DemoCommand.self, ExitCodesCommand.self,
        ]
        #if DEBUG
        return commands + [DebugCommand.self]
        #else
        return commands
        #endif
    }

    /// Creates the root command (the argument parser's requirement).
    public init() {}
}

/// Runs the tool on arguments and returns its exit status (``ToolExitCode``).
public enum ToolMain {
    /// Parses `arguments` (without the program name), runs the command and reports a failure
    /// on standard error — or, with `--json`, as `{"error": …}` on standard output.
    public static func run(_ arguments: [String]) async -> Int32 {
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            var command = try E2EETool.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return ToolExitCode.success.rawValue
        } catch {
            let parserCode = E2EETool.exitCode(for: error)
            if parserCode == .success {
                Console.write(E2EETool.fullMessage(for: error) + "\n", to: .standardOutput)
                return ToolExitCode.success.rawValue
            }
            let failure = parserCode == .validationFailure
                ? ToolError(.usage, E2EETool.fullMessage(for: error))
                : ErrorClassifier.classify(error)
            report(failure, json: json)
            return failure.code.rawValue
        }
    }

    private static func report(_ failure: ToolError, json: Bool) {
        if json && failure.resultWritten { return }
        struct Body: Encodable { let error: Detail }
        struct Detail: Encodable {
            let exitCode: Int32
            let name: String
            let message: String
            enum CodingKeys: String, CodingKey { case exitCode = "exit_code", name, message }
        }
        if json, let text = try? Console.encodeLine(Body(error: Detail(exitCode: failure.code.rawValue, name: failure.code.name, message: failure.message))) {
            Console.write(text + "\n", to: .standardOutput)
        } else {
            Console.write("e2ee-tool: error: \(failure.message)\n", to: .standardError)
        }
    }
}
