// swift-tools-version:6.1
import PackageDescription

// Coverage-guided fuzzing (libFuzzer) of every decoder that reads outside bytes. A package of
// its own so the library never builds with sanitizer flags. Build and run through `run.sh`
// (a campaign) or `smoke.sh` (CI): both pass `-sanitize=fuzzer,address` to every Swift module,
// so the library's code is instrumented too. See docs/testing.md, "Fuzzing".
let package = Package(
    name: "E2EECoreFuzz",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "E2EECore", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        // Input helpers, the property check, seed writing and the fixtures targets share.
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "E2EECrypto", package: "E2EECore"),
                .product(name: "E2EEKeyStore", package: "E2EECore"),
            ],
            path: "Sources/FuzzSupport"
        ),
        fuzzTarget("fuzz-envelope"),
        fuzzTarget("fuzz-recipient-entries"),
        fuzzTarget("fuzz-pairwise-message"),
        fuzzTarget("fuzz-pairwise-plaintext"),
        fuzzTarget("fuzz-published-keys"),
        fuzzTarget("fuzz-signed-prekey-record"),
        fuzzTarget("fuzz-link-plaintext"),
        fuzzTarget("fuzz-transfer-records"),
        fuzzTarget("fuzz-prekey-bundle", [messaging, transport]),
        fuzzTarget("fuzz-payload-json"),
        fuzzTarget("fuzz-json-differential"),
        fuzzTarget("fuzz-base64"),
        fuzzTarget("fuzz-server-json", [messaging, transport]),
        fuzzTarget("fuzz-realtime-event", [messaging]),
        fuzzTarget("fuzz-message-assembler", [
            messaging, transport,
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
        ]),
        fuzzTarget("fuzz-stored-forms", [keyStore]),
        fuzzTarget("fuzz-store-metadata", [keyStore, .product(name: "GRDB", package: "GRDB.swift")]),
        fuzzTarget("fuzz-receiving-device"),
    ],
    swiftLanguageModes: [.v6]
)

var messaging: Target.Dependency { .product(name: "E2EEMessaging", package: "E2EECore") }
var transport: Target.Dependency { .product(name: "E2EETransport", package: "E2EECore") }
var keyStore: Target.Dependency { .product(name: "E2EEKeyStore", package: "E2EECore") }

/// One libFuzzer target: `Targets/<name>/`, whose file defines `LLVMFuzzerTestOneInput` with
/// `@_cdecl` (libFuzzer supplies `main`, hence `-parse-as-library`).
func fuzzTarget(_ name: String, _ extra: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", .product(name: "E2EECrypto", package: "E2EECore")] + extra,
        path: "Targets/\(name)",
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    )
}
