import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// `Journal.execute(batches:acknowledge:)` when a write fails: a child process
/// (ShopStoreWriter --pipelined) under a file size limit (RLIMIT_FSIZE).
@Suite struct PipelinedFullDiskTests {
    @Test("a pipelined run whose write fails at a file size limit stops with the error, and the journal then holds exactly the batches it acknowledged, whole, and verifies",
          arguments: [(200, 100), (400, 30)])   // KiB, commands a batch: 100 written by the encoding thread, 30 in one write
    func aFailedWriteCutsBackToTheLastAcknowledgedBatch(limit: Int, batch: Int) throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        let household = #"{"type":"CreateHousehold","actor":"ana","data":{"name":"Home","currency":"EUR","timeZone":"UTC"}}"#
        #expect(try tool.run(["apply"], stdin: household + "\n").status == 0)
        // bash's ulimit -f counts 1024-byte blocks
        let result = try tool.run(["-c", "ulimit -f \(limit) && exec \"$0\" --pipelined shop.ndjson 5000 \(batch)", storeWriter],
                                  executable: "/bin/bash")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("io_error") && result.stderr.contains("File too large"), "\(result.stderr)")
        let acknowledged = result.stdout.split(separator: "\n").flatMap { line in
            line.split(separator: " ").last.map { $0.split(separator: ",").compactMap { Int($0) } } ?? []
        }
        #expect(acknowledged.count >= batch && acknowledged.count % batch == 0, "whole batches: \(acknowledged.count)")
        #expect(acknowledged == Array(2..<(2 + acknowledged.count)), "in order, no gap")
        #expect(Scratch.bytes(journal).count <= limit * 1024)
        let report = try JournalVerifier.verify(path: journal)
        #expect(report.ok, "no half event: \(String(describing: report.failure))")
        #expect(report.head.seq == 1 + acknowledged.count, "nothing kept that was not acknowledged, nothing acknowledged lost")
    }
}
