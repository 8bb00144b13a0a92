import E2EECrypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secrets the tool needs (store passphrase, account password): from an environment variable,
/// else typed at a prompt with echo off when standard input is a terminal. Never an argument
/// (arguments show in `ps` and shell history).
struct SecretInput {
    /// The store passphrase's variable.
    static let passphraseVariable = "E2EE_STORE_PASSPHRASE"
    /// The account password's variable.
    static let passwordVariable = "E2EE_PASSWORD"

    let environment: [String: String]

    /// The store passphrase; `confirm` asks twice at a prompt (a new store).
    /// - Throws: ``ToolError`` (usage) when it is neither set nor can be asked for, or empty.
    func passphrase(confirm: Bool) throws -> SecretBytes {
        var bytes = try obtain(variable: Self.passphraseVariable, prompt: "Store passphrase: ", confirm: confirm)
        guard !bytes.isEmpty else { throw ToolError(.usage, "the store passphrase is empty") }
        return SecretBytes(consuming: &bytes)
    }

    /// The account password.
    /// - Throws: ``ToolError`` (usage) when it is neither set nor can be asked for.
    func password() throws -> String {
        var bytes = try obtain(variable: Self.passwordVariable, prompt: "Password: ", confirm: false)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func obtain(variable: String, prompt: String, confirm: Bool) throws -> [UInt8] {
        if let value = environment[variable] { return Array(value.utf8) }
        guard isatty(STDIN_FILENO) == 1 else {
            throw ToolError(.usage, "\(variable) is not set and standard input is not a terminal to ask on")
        }
        let first = try Self.prompted(prompt)
        if confirm {
            var second = try Self.prompted("Again: ")
            defer { for index in second.indices { second[index] = 0 } }
            guard first == second else { throw ToolError(.usage, "the two entries differ") }
        }
        return first
    }

    /// Reads one line from the terminal on standard input with echo off.
    private static func prompted(_ prompt: String) throws -> [UInt8] {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let haveTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if haveTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if haveTerminal { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { break }
                line.append(byte)
            } else if count == -1 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }
}
