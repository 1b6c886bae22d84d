// swift-tools-version:6.0
import PackageDescription

// An app embedding ShopEvents by path, in Swift 6 mode with strict
// concurrency: what an app does with the package, with no lock, no
// @unchecked Sendable and no polling loop of its own. CI builds and runs it.
let package = Package(
    name: "HouseholdApp",
    dependencies: [.package(name: "ShopEvents", path: "../..")],
    targets: [
        .executableTarget(name: "HouseholdApp", dependencies: [
            .product(name: "ShopEvents", package: "ShopEvents"),
            .product(name: "ShopProjections", package: "ShopEvents"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
