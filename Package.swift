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
    ],
    targets: [
        .target(name: "ShopEvents"),
        .target(name: "ShopProjections", dependencies: ["ShopEvents"]),
        .executableTarget(name: "ShopReplay", dependencies: ["ShopEvents", "ShopProjections"]),
        .testTarget(name: "ShopEventsTests", dependencies: ["ShopEvents"]),
        .testTarget(name: "ShopProjectionsTests", dependencies: ["ShopEvents", "ShopProjections"]),
    ],
    swiftLanguageModes: [.v6]
)
