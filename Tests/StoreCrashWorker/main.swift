import E2EECrypto
import E2EEKeyStore
import E2EETestSupport
import Foundation

// The crash-test worker: opens the store named by its first argument with the hex key in
// E2EE_WORKER_KEY, then runs `CrashWorkload` until it is killed, writing one line to stdout
// (unbuffered) after each commit.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else { fail("usage: StoreCrashWorker <store path>  (key hex in E2EE_WORKER_KEY)") }
guard let keyHex = ProcessInfo.processInfo.environment["E2EE_WORKER_KEY"], var keyBytes = try? Hex.decode(keyHex) else {
    fail("E2EE_WORKER_KEY missing or not hex")
}
do {
    let key = try StoreKey(SecretBytes(consuming: &keyBytes))
    let store = try KeyStore.open(at: URL(fileURLWithPath: arguments[1]), key: key)
    try await CrashWorkload.setUp(store)
    try await CrashWorkload.run(store) { line in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
} catch {
    fail("worker failed: \(error)")
}
