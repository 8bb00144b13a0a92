// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "E2EECore",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "E2EECrypto", targets: ["E2EECrypto"]),
        .library(name: "E2EEKeyStore", targets: ["E2EEKeyStore"]),
        .library(name: "CSodium", targets: ["CSodium"]),
        .library(name: "E2EEDevServer", targets: ["E2EEDevServer"]),
        .library(name: "E2EEMessaging", targets: ["E2EEMessaging"]),
        .library(name: "E2EETransport", targets: ["E2EETransport"]),
        .executable(name: "e2ee-devserver", targets: ["e2ee-devserver"]),
        .executable(name: "e2ee-tool", targets: ["e2ee-tool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already in the graph through async-http-client and swift-websocket; declared for the
        // WebSocket client's TLS (E2EETransport).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Only for `swift package generate-documentation` (Scripts/docs.sh); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
            name: "HistorySeeder",
            dependencies: ["E2EEKeyStore", "E2EECrypto"],
            path: "Tests/HistorySeeder"
        ),
        .executableTarget(
            name: "StoreCrashWorker",
            dependencies: ["E2EEKeyStore", "E2EECrypto", "E2EETestSupport"],
            path: "Tests/StoreCrashWorker"
        ),
        .target(
            name: "E2EEDevServer",
            dependencies: [
                "E2EECrypto",
                "E2EEMessaging",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "E2EEMessaging",
            dependencies: ["E2EEKeyStore", "E2EECrypto"]
        ),
        .target(
            name: "E2EETransport",
            dependencies: [
                "E2EEMessaging", "E2EEKeyStore", "E2EECrypto",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "e2ee-devserver",
            dependencies: ["E2EEDevServer"]
        ),
        .target(
            name: "E2EEConformance",
            dependencies: ["E2EECrypto"]
        ),
        .target(
            name: "E2EEToolCore",
            dependencies: [
                "E2EEMessaging", "E2EETransport", "E2EEKeyStore", "E2EECrypto", "E2EEDevServer", "E2EEConformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "e2ee-tool",
            dependencies: ["E2EEToolCore"]
        ),
        .target(
            name: "E2EETestSupport",
            dependencies: ["E2EECrypto"],
            path: "Tests/TestSupport"
        ),
        .target(
            name: "E2EEProtocolVectorGenerator",
            dependencies: ["E2EECrypto", "E2EEConformance"],
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
            name: "E2EEDevServerTests",
            dependencies: [
                "E2EEDevServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "E2EETransportTests",
            dependencies: [
                "E2EETransport", "E2EEMessaging", "E2EEKeyStore", "E2EECrypto", "E2EEDevServer",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "E2EEMessagingTests",
            dependencies: ["E2EEMessaging", "E2EEKeyStore", "E2EECrypto", "E2EETestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "E2EEIntegrationTests",
            dependencies: [
                "E2EEMessaging", "E2EETransport", "E2EEDevServer", "E2EEKeyStore", "E2EECrypto", "E2EETestSupport",
            ]
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["E2EECrypto", "E2EEConformance", "E2EETestSupport", "E2EEProtocolVectorGenerator"]
        ),
        .testTarget(
            name: "E2EEToolTests",
            dependencies: [
                "E2EEToolCore", "E2EEConformance", "E2EEDevServer", "E2EETransport", "E2EEMessaging", "E2EEKeyStore", "E2EECrypto",
                "E2EETestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
