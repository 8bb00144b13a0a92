import ArgumentParser

/// `e2ee-tool exit-codes` (and `e2ee-tool help exit-codes`): the exit status table.
struct ExitCodesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "Print what each exit status means.",
        discussion: "Exit statuses:\n" + ToolExitCode.table
    )

    @Flag(name: .long, help: "As JSON.")
    var json = false

    func run() throws {
        struct Entry: Encodable { let code: Int32; let name: String; let meaning: String }
        try Console(json: json).result(ToolExitCode.allCases.map { Entry(code: $0.rawValue, name: $0.name, meaning: $0.meaning) }) {
            ToolExitCode.table
        }
    }
}
