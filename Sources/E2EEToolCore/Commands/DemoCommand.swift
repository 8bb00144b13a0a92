import AsyncHTTPClient
import ArgumentParser
import E2EEDevServer

/// `e2ee-tool demo`: the development server in-process and two users with two devices each
/// through a DM and a group.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start a development server in-process and run two users (two devices each) through a DM and a group.",
        discussion: """
            Stores are in memory and the server is on a free loopback port; nothing is written to \
            disk and nothing outside this machine is contacted. It prints what each device sent and \
            who each envelope is addressed to; then every device catches up and prints what it reads \
            in the DM and the group. The exit status is 1 when the four devices do not all read the \
            same messages, in the same order, as were sent.
            """)

    @Flag(name: .long, help: "Machine output: one JSON document on standard output.")
    var json = false

    @Flag(name: .long, help: "Log what the demo does to standard error.")
    var verbose = false

    func run() async throws {
        ToolLogging.bootstrap(verbose: verbose)
        let console = Console(json: json)
        let server = try await DevServer.start(configuration: .testing())
        console.progress("development server on \(server.baseURL)")
        // The demo's own HTTP client, shut down before the server: an idle keep-alive connection
        // left open would hold the server's graceful shutdown until the client's idle timeout.
        let client = ToolHTTPClient.makeClient()
        let report: DemoReport
        do {
            report = try await DemoScenario(baseURL: server.baseURL, client: client, console: console,
                                            logger: ToolLogging.logger("e2ee-tool.demo")).run()
        } catch {
            try? await client.shutdown()
            await server.shutdown()
            throw error
        }
        try? await client.shutdown()
        await server.shutdown()
        try console.result(report) { report.text }
        if !report.agreed {
            throw ToolError(.failure, "the devices did not all read the same messages: " + report.problems.joined(separator: "; "), resultWritten: true)
        }
    }
}
