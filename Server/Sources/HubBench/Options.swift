import Foundation

/// `hub-bench`'s arguments (the comparison with the stdio hub; `hub-bench postgres` has its own, ``PostgresBench``).
struct Options {
    var shopHub = "Server/.build/release/shop-hub"
    var shopReplay = ".build/release/shop-replay"
    var pushes = 2_000
    var households = 100
    var pullLines = 50_000
    var syncs = 300

    init() {
        var given = BenchArguments(Array(CommandLine.arguments.dropFirst()))
        if let v = given.value("--shop-hub") { shopHub = v }
        if let v = given.value("--shop-replay") { shopReplay = v }
        if let v = given.value("--pushes").flatMap(Int.init) { pushes = v }
        if let v = given.value("--households").flatMap(Int.init) { households = v }
        if let v = given.value("--pull-lines").flatMap(Int.init) { pullLines = v }
        if let v = given.value("--syncs").flatMap(Int.init) { syncs = v }
    }
}
