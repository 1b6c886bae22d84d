import Foundation
import Testing
@testable import ShopHub

/// The small helpers of a request's log line and its token.
@Suite struct SupportTests {
    @Test func millisecondsHaveOneDecimalRoundedHalfUp() {
        #expect(HubMetrics.milliseconds(.zero) == "0.0")
        #expect(HubMetrics.milliseconds(.microseconds(49)) == "0.0")
        #expect(HubMetrics.milliseconds(.microseconds(50)) == "0.1")
        #expect(HubMetrics.milliseconds(.microseconds(12_345)) == "12.3")
        #expect(HubMetrics.milliseconds(.microseconds(1_960)) == "2.0")
        #expect(HubMetrics.milliseconds(.seconds(61) + .microseconds(7_000)) == "61007.0")
    }

    /// A PostgresNIO row sequence read by a request's task ended the process when the database closed
    /// the connection mid-answer (docs/HUB.md, "Rows are collected on the connection's thread"): every
    /// statement goes through PostgresRows.swift, which collects rows on the connection's event loop.
    @Test("the PostgreSQL storage sends every statement through PostgresRows.swift: no row sequence is read anywhere else")
    func statementsGoThroughPostgresRows() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ShopHub")
        // Every Swift file of the hub, in whichever folder of its role it stands.
        let files = (FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        #expect(files.contains("Storage/PostgreSQL/PostgresRows.swift") && files.contains("Storage/PostgreSQL/PostgresLineStore.swift"))
        var found: [String] = []
        for file in files where file != "Storage/PostgreSQL/PostgresRows.swift" {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(".query(") || line.contains(".execute(") || line.contains("PostgresRowSequence") {
                found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found == [])
    }

    @Test func blanksAreTrimmedAtBothEndsOnly() {
        #expect("abc".dropFirst(0).trimmingBlanks == "abc")
        #expect(" \tab c \t".dropFirst(0).trimmingBlanks == "ab c")
        #expect("   ".dropFirst(0).trimmingBlanks == "")
        #expect("".dropFirst(0).trimmingBlanks == "")
    }
}
