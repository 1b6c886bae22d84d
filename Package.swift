// swift-tools-version:6.0
import PackageDescription

// ShopEvents promises the apps that embed it: no package dependencies.
// The Swift toolchain, Foundation and the C library only.
let package = Package(
    name: "ShopEvents",
    products: [
        .library(name: "ShopEvents", targets: ["ShopEvents"]),
        .library(name: "ShopProjections", targets: ["ShopProjections"]),
        .executable(name: "shop-replay", targets: ["ShopReplay"]),
        // Test helpers (child processes, scratch folders, sync worlds), for the Server package's tests; not for apps.
        .library(name: "ShopTestSupport", targets: ["ShopTestSupport"]),
    ],
    targets: [
        // SHA-256 with the CPU's SHA instructions where it has them (x86-64 SHA-NI), and ids and digests
        // read from hex with its vector instructions (SSSE3/SSE4.1): the compiler's intrinsics, no
        // library. ShopEvents keeps its portable Swift code for every other CPU.
        .target(name: "CShopSHA", path: "Sources/CShopSHA"),
        .target(name: "ShopEvents", dependencies: ["CShopSHA"]),
        .target(name: "ShopProjections", dependencies: ["ShopEvents"]),
        .executableTarget(name: "ShopReplay", dependencies: ["ShopEvents", "ShopProjections"]),
        // Random histories, scratch files and child processes shared by the test targets (and Server/'s).
        .target(name: "ShopTestSupport", dependencies: ["ShopEvents"], path: "Tests/ShopTestSupport"),
        // Benchmarks of the app API (write → model latency across processes, opening a store); not a product.
        .executableTarget(name: "StoreBench", dependencies: ["ShopEvents", "ShopProjections"], path: "Benchmarks/StoreBench"),
        // A second process that writes through a ShopStore, for the multi-process store tests; not a product.
        .executableTarget(name: "ShopStoreWriter", dependencies: ["ShopEvents"], path: "Tests/ShopStoreWriter"),
        .testTarget(name: "ShopEventsTests", dependencies: ["ShopEvents", "ShopTestSupport"]),
        .testTarget(name: "ShopProjectionsTests", dependencies: ["ShopEvents", "ShopProjections", "ShopTestSupport"]),
        // Every DocC example compiled, and held to its doc comment.
        // (A snippet shows a value it does not go on to use: that is no warning worth fixing in a doc comment.)
        .testTarget(name: "DocExampleTests", dependencies: ["ShopEvents", "ShopProjections", "ShopTestSupport"],
                    swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        // The app API: ShopStore across processes, live events, HouseholdModel.
        .testTarget(name: "ShopStoreTests", dependencies: ["ShopEvents", "ShopProjections", "ShopTestSupport", "ShopStoreWriter"]),
        // End-to-end tests that run the built shop-replay binary as a separate process.
        .testTarget(name: "ShopReplayTests", dependencies: ["ShopReplay", "ShopEvents", "ShopProjections", "ShopTestSupport"]),
        // Sync through a hub: devices and hubs as separate processes, conflicts, SIGKILL, concurrency.
        .testTarget(name: "ShopSyncTests", dependencies: ["ShopReplay", "ShopEvents", "ShopTestSupport"]),
        // Crashes, corruption, concurrency, full disks, fuzzing and bad input, with real processes and files.
        .testTarget(name: "ShopReliabilityTests", dependencies: ["ShopReplay", "ShopEvents", "ShopProjections", "ShopTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
