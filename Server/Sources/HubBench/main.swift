import Foundation
#if canImport(Glibc)
import Glibc
#endif

// hub-bench: the hosted hub against the stdio hub (Comparison.swift), or the PostgreSQL storage
// against its peers (`hub-bench postgres`, PostgresBench.swift), or views over HTTP (`hub-bench views`, ViewsBench.swift),
// or a hub holding thousands of open phones (`hub-bench open`, OpenBench.swift), or thousands of slow
// connections from one address (`hub-bench slow`, SlowBench.swift). docs/BENCHMARKS.md says how to run them.

do {
    if CommandLine.arguments.dropFirst().first == "postgres" {
        try await PostgresBench(Array(CommandLine.arguments.dropFirst(2))).run()
    } else if CommandLine.arguments.dropFirst().first == "open" {
        try await OpenBench(Array(CommandLine.arguments.dropFirst(2))).run()
    } else if CommandLine.arguments.dropFirst().first == "slow" {
        try await SlowBench(Array(CommandLine.arguments.dropFirst(2))).run()
    } else if CommandLine.arguments.dropFirst().first == "views" {
        try await ViewsBench(Array(CommandLine.arguments.dropFirst(2))).run()
    } else {
        try await comparisonMain()
    }
} catch {
    FileHandle.standardError.write(Data("hub-bench: \(error)\n".utf8))
    exit(3)
}
