import E2EEToolCore
import Foundation

// `e2ee-tool --help` lists the commands; docs/e2ee-tool.md describes them, the environment
// variables and the exit codes.
let status = await ToolMain.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
