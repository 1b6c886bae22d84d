import Foundation

/// What `/proc` says of a hub process at one moment: resident memory, open files, threads, CPU used.
struct ProcessFigures {
    var residentKiB = 0.0
    var files = 0
    var threads = 0
    var cpuSeconds = 0.0

    init(pid: Int32) {
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("VmRSS:"), fields.count > 1 { residentKiB = Double(fields[1]) ?? 0 }
                if line.hasPrefix("Threads:") { threads = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0 }
            }
        }
        files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        // /proc/PID/stat: fields 14 and 15 (utime, stime) in clock ticks, counted after the command's ")".
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
                cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
            }
        }
    }

    /// The sum over several processes (two hubs on one database).
    static func total(_ all: [ProcessFigures]) -> ProcessFigures {
        var sum = ProcessFigures()
        for one in all {
            sum.residentKiB += one.residentKiB
            sum.files += one.files
            sum.threads += one.threads
            sum.cpuSeconds += one.cpuSeconds
        }
        return sum
    }

    private init() {}
}
