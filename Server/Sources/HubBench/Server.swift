import Foundation

/// `shop-hub serve` on a free port over a fresh folder.
final class Server: @unchecked Sendable {
    // @unchecked: started and stopped by the main task only.
    let process = Process()
    let base: String
    let url: URL
    let port: Int
    convenience init(_ binary: String, data: String, connections: [String] = Server.manyConnections) throws {
        try self.init(binary, storage: ["--data", data], connections: connections)
    }

    /// The benchmarks open thousands of connections from one address (127.0.0.1): no cap on them, unless asked.
    static let manyConnections = ["--connections-per-address", "100000"]

    init(_ binary: String, storage: [String], connections: [String] = Server.manyConnections) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--requests-per-second", "100000",
                             "--households-per-hour", "100000", "--joins-per-minute", "100000"] + connections + storage
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchFailure(description: "shop-hub did not start") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "http://127.0.0.1:") else { throw BenchFailure(description: text) }
        port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
        base = "http://127.0.0.1:\(port)"
        guard let url = URL(string: base) else { throw BenchFailure(description: text) }
        self.url = url
    }
    /// Peak resident memory (VmHWM), in MiB.
    var peakRSS: Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb / 1024
    }
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
