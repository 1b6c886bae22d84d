// swift-tools-version:6.0
import PackageDescription

// shop-hub: the hosted hub (docs/HUB.md). A package of its own so that the
// root package, which apps embed, keeps no dependencies.
let package = Package(
    name: "ShopHub",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "shop-hub", targets: ["ShopHubServer"]),
        .library(name: "ShopHub", targets: ["ShopHub"]),
    ],
    dependencies: [
        .package(name: "ShopEvents", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The Prometheus text exposition of swift-metrics: the swift-server project's own backend.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The HTTP parts Hummingbird's channel carries: a request the parser refused is answered in JSON.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The PostgreSQL storage (`serve --postgres URL`).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS in the process (`--tls-cert`/`--tls-key`), for a hub with no proxy in front.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // gzip for the web app's files and the views' JSON (zlib on ByteBuffers; the system's libz).
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // The hub: storage behind one protocol, tokens, the routes. No process concerns.
        .target(name: "ShopHub", dependencies: [
            .product(name: "ShopEvents", package: "ShopEvents"),
            .product(name: "ShopProjections", package: "ShopEvents"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "CompressNIO", package: "compress-nio"),
        ],
        // The household's web app (docs/APP.md): HTML, CSS and JavaScript modules, served as they are.
        resources: [.copy("WebApp")]),
        // `shop-hub`: arguments, signals, the service group.
        .executableTarget(name: "ShopHubServer", dependencies: [
            "ShopHub",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // hub-bench: the hosted hub against the stdio hub in one run (docs/BENCHMARKS.md); not a product.
        .executableTarget(name: "HubBench", dependencies: [
            .product(name: "ShopEvents", package: "ShopEvents"),
        ]),
        .testTarget(name: "ShopHubTests", dependencies: [
            "ShopHub",
            // `buildApplication` in process (RouteTests), as Hummingbird's template tests its App.
            "ShopHubServer",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ShopEvents", package: "ShopEvents"),
            .product(name: "ShopTestSupport", package: "ShopEvents"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
