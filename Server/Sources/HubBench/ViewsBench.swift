import Foundation
import ShopEvents
#if canImport(Glibc)
import Glibc
#endif

// `hub-bench views`: views over HTTP (docs/HUB.md, "Views over HTTP": p99 under 20 ms for a household of 100,000
// events). A household's journal (given, or `shop-replay bench`'s synthetic one) is imported with
// `shop-hub household import`, the hub started over it, and each view asked N times in turn over one
// keep-alive connection on loopback, beside `/healthz` (a route that answers at once) in the same run:
// p50 and p99 per route, in ms, from the request written to the answer read whole. Not a test.
//
//   Server/.build/release/hub-bench views [--journal PATH | --events 100000] [--requests 1000]
//       [--shop-hub Server/.build/release/shop-hub] [--shop-replay .build/release/shop-replay]

struct ViewsBench {
    var shopHub = "Server/.build/release/shop-hub"
    var shopReplay = ".build/release/shop-replay"
    var journal: String?
    var events = 100_000
    var requests = 1_000

    /// The routes measured, after the household's path (`/healthz` is the hub's own).
    static let routes = ["/healthz", "views/lists", "views/shopping-list-by-location", "views/list-detail", "views/all-items-by-name",
                         "views/suggestions?prefix=a", "views/household", "views/stats"]

    init(_ arguments: [String]) throws {
        var given = BenchArguments(arguments)
        if let v = given.value("--shop-hub") { shopHub = v }
        if let v = given.value("--shop-replay") { shopReplay = v }
        journal = given.value("--journal")
        if let v = given.value("--events").flatMap(Int.init) { events = v }
        if let v = given.value("--requests").flatMap(Int.init) { requests = max(1, v) }
        guard given.words.isEmpty else { throw BenchFailure(description: "hub-bench views: unknown arguments \(given.words)") }
    }

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hub-bench-views-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try journal ?? generate(in: folder)
        let (household, events) = try Self.household(of: path)
        let token = try importHousehold(household, from: path, data: folder + "/hub-data")
        let server = try Server(shopHub, data: folder + "/hub-data")
        defer { server.stop() }
        let client = try KeepAliveClient(port: server.port)
        defer { client.close() }
        print("hub-bench views: household of \(events) events (\(path)), \(requests) requests a route, one keep-alive connection")
        print("| route | p50 ms | p99 ms | max ms | bytes |")
        print("|---|---:|---:|---:|---:|")
        var before = 0.0
        for route in Self.routes {
            if route == Self.routes[1] { before = server.residentMemory }   // after /healthz, before the household is folded
            let target = route.hasPrefix("/") ? route : "/v1/households/\(household)/\(route)"
            let (warm, _) = try client.get(target, token: token)   // the first request folds the household
            guard warm == 200 else { throw BenchFailure(description: "\(target) answered \(warm)") }
            var times: [Double] = []
            var bytes = 0
            for _ in 0..<requests {
                let started = ContinuousClock.now
                let (status, length) = try client.get(target, token: token)
                times.append(seconds(since: started) * 1000)
                guard status == 200 else { throw BenchFailure(description: "\(target) answered \(status)") }
                bytes = length
            }
            let f = { (ms: Double) in String(format: "%.2f", ms) }
            print("| \(route) | \(f(percentile(times, 0.5))) | \(f(percentile(times, 0.99))) | \(f(times.max() ?? 0)) | \(bytes) |")
        }
        let after = server.residentMemory
        print("shop-hub RSS: \(String(format: "%.1f", before)) MiB before the household was folded, \(String(format: "%.1f", after)) MiB after"
              + " (VmRSS; peak \(String(format: "%.1f", server.peakRSS)) MiB VmHWM)")
    }

    /// `shop-replay bench`'s synthetic household of `events` events, written in `folder` (its own figures are not shown).
    private func generate(in folder: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shopReplay)
        process.arguments = ["bench", "--events", "\(events)", "--runs", "1", "--no-peers", "--dir", folder]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchFailure(description: "shop-replay bench failed (\(process.terminationStatus))") }
        return folder + "/bench.ndjson"
    }

    /// The household a journal creates, and its number of events.
    static func household(of path: String) throws -> (HouseholdID, Int) {
        let reader = try JournalReader(path: path, verifyChain: false)
        guard case let .householdCreated(household, _, _, _)? = try reader.next()?.event else {
            throw BenchFailure(description: "\(path) does not start with HouseholdCreated")
        }
        var last = 1
        while let event = try reader.next() { last = event.seq }
        return (household, last)
    }

    /// `shop-hub household import`, with a device enrolled: its token.
    private func importHousehold(_ household: HouseholdID, from path: String, data: String) throws -> String {
        let process = Process(), out = Pipe()
        process.executableURL = URL(fileURLWithPath: shopHub)
        process.arguments = ["household", "import", household.description, path, "--data", data, "--device", "bench", "--actor", "ana"]
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let range = text.range(of: "shown once: ") else {
            throw BenchFailure(description: "household import: \(text)")
        }
        return String(text[range.upperBound...].prefix { !$0.isWhitespace })
    }
}

/// One keep-alive HTTP/1.1 connection to the hub on loopback: a GET written, its answer read whole.
final class KeepAliveClient {
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    init(port: Int) throws {
        fd = try connectLoopback(port: port)
    }

    func close() { Glibc.close(fd) }

    /// The status and the body's length of `GET target`.
    func get(_ target: String, token: String) throws -> (Int, Int) {
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw BenchFailure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
        var input: [UInt8] = []
        while true {
            if let (status, headEnd, length) = Self.head(input), input.count >= headEnd + length { return (status, length) }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw BenchFailure(description: "the hub closed the connection") }
            input += buffer[0..<n]
        }
    }

    /// The status, where the body starts and its `Content-Length`, once the head is in.
    static func head(_ input: [UInt8]) -> (Int, Int, Int)? {
        guard input.count >= 4, let end = (0...(input.count - 4)).first(where: { input[$0] == 13 && input[$0 + 1] == 10 && input[$0 + 2] == 13 && input[$0 + 3] == 10 }) else {
            return nil
        }
        let lines = String(decoding: input[..<end], as: UTF8.self).split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let length = lines.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        return (status, end + 4, length)
    }
}

extension Server {
    /// Resident memory now (VmRSS), in MiB.
    var residentMemory: Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb / 1024
    }
}
