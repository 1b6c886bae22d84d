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
        var words = Array(CommandLine.arguments.dropFirst())
        func value(_ name: String) -> String? {
            guard let i = words.firstIndex(of: name), i + 1 < words.count else { return nil }
            defer { words.removeSubrange(i...(i + 1)) }
            return words[i + 1]
        }
        if let v = value("--shop-hub") { shopHub = v }
        if let v = value("--shop-replay") { shopReplay = v }
        if let v = value("--pushes").flatMap(Int.init) { pushes = v }
        if let v = value("--households").flatMap(Int.init) { households = v }
        if let v = value("--pull-lines").flatMap(Int.init) { pullLines = v }
        if let v = value("--syncs").flatMap(Int.init) { syncs = v }
    }
}
