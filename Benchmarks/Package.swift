// swift-tools-version:6.1
import PackageDescription

// The benchmark suite lives in its own package so the library never depends on
// package-benchmark. Run from this directory:
//   swift package --allow-writing-to-package-directory benchmark
let package = Package(
    name: "E2EECoreBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "E2EECore", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Helpers shared by the suites (C buffers, the measured loop).
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EECrypto", package: "E2EECore"),
                .product(name: "CSodium", package: "E2EECore"),
            ],
            path: "Benchmarks/Support"
        ),
        .executableTarget(
            name: "Primitives",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EECrypto", package: "E2EECore"),
                .product(name: "CSodium", package: "E2EECore"),
            ],
            path: "Benchmarks/Primitives",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "Protocol",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EECrypto", package: "E2EECore"),
                .product(name: "CSodium", package: "E2EECore"),
            ],
            path: "Benchmarks/Protocol",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "KeyStore",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EECrypto", package: "E2EECore"),
                .product(name: "E2EEKeyStore", package: "E2EECore"),
            ],
            path: "Benchmarks/KeyStore",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "Messaging",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EEMessaging", package: "E2EECore"),
                .product(name: "E2EEKeyStore", package: "E2EECore"),
                .product(name: "E2EETransport", package: "E2EECore"),
                .product(name: "E2EEDevServer", package: "E2EECore"),
            ],
            path: "Benchmarks/Messaging",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "Ingest",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EECrypto", package: "E2EECore"),
                .product(name: "E2EEKeyStore", package: "E2EECore"),
                .product(name: "E2EEMessaging", package: "E2EECore"),
                .product(name: "CSodium", package: "E2EECore"),
                // The floor's primary-key-only table (IngestFloor).
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/Ingest",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "History",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EECrypto", package: "E2EECore"),
                .product(name: "E2EEKeyStore", package: "E2EECore"),
            ],
            path: "Benchmarks/History",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "Transport",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "E2EEDevServer", package: "E2EECore"),
                .product(name: "E2EEMessaging", package: "E2EECore"),
                .product(name: "E2EETransport", package: "E2EECore"),
            ],
            path: "Benchmarks/Transport",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
