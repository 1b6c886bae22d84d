import Foundation
import Testing
import ShopTestSupport

/// An empty path names no file: the tool says so as a usage error (exit 2)
/// and writes nothing, not a lock in the working folder.
@Suite struct EmptyPathTests {
    @Test("--journal \"\" (and --journal=) is a usage error naming the option, and nothing is written in the working folder",
          arguments: [["apply", "--journal", ""], ["apply", "--journal="], ["view", "lists", "--journal", ""], ["verify", "--journal", ""]])
    func anEmptyJournalPathIsAUsageError(_ arguments: [String]) throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let result = try tool.run(arguments, stdin: #"{"type":"CreateList","name":"Weekly"}"# + "\n")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "shop-replay \(arguments[0]): --journal needs a path, not an empty one: --journal PATH\nSee shop-replay \(arguments[0]) --help\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tool.folder.path) == [])
    }

    @Test("$SHOP_JOURNAL set empty falls back to ./shop.ndjson, as before")
    func anEmptyEnvironmentJournalFallsBack() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let result = try tool.run(["view", "lists"], environment: ["SHOP_JOURNAL": ""])
        let journal = tool.folder.appendingPathComponent("shop.ndjson").resolvingSymlinksInPath().path
        #expect(result.status == 3)
        #expect(result.stderr == "shop-replay view: there is no journal at \(journal) (give --journal PATH or set SHOP_JOURNAL)\n")
    }
}
