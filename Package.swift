// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "E2EECore",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "E2EECrypto", targets: ["E2EECrypto"]),
        .library(name: "E2EEKeyStore", targets: ["E2EEKeyStore"]),
        .library(name: "CSodium", targets: ["CSodium"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .target(
            name: "E2EECrypto",
            dependencies: ["CSodium"]
        ),
        .target(
            name: "E2EEKeyStore",
            dependencies: ["E2EECrypto", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "StoreCrashWorker",
            dependencies: ["E2EEKeyStore", "E2EECrypto", "E2EETestSupport"],
            path: "Tests/StoreCrashWorker"
        ),
        .target(
            name: "E2EETestSupport",
            dependencies: ["E2EECrypto"],
            path: "Tests/TestSupport"
        ),
        .target(
            name: "E2EEProtocolVectorGenerator",
            dependencies: ["E2EECrypto"],
            path: "Tests/ProtocolVectorGenerator"
        ),
        .testTarget(
            name: "E2EECryptoTests",
            dependencies: ["E2EECrypto", "E2EETestSupport"]
        ),
        .testTarget(
            name: "E2EEKeyStoreTests",
            dependencies: ["E2EEKeyStore", "E2EECrypto", "E2EETestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["E2EECrypto", "E2EETestSupport", "E2EEProtocolVectorGenerator"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
