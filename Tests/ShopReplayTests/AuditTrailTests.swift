import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// verify and repair on real files, changed the ways a person might change them.
@Suite struct VerifyCommandTests {
    func journal() throws -> (ToolRunner, [[UInt8]]) {
        let tool = try ToolRunner.withHousehold()
        let lines = Scratch.bytes(tool.path("shop.ndjson")).split(separator: 0x0A).map(Array.init)
        return (tool, lines)
    }

    func write(_ lines: [[UInt8]], _ tool: ToolRunner) {
        Scratch.write(Array(lines.joined(separator: [0x0A])) + [0x0A], to: tool.path("shop.ndjson"))
    }

    func verify(_ tool: ToolRunner, _ extra: [String] = []) throws -> (Int32, [String: Any]) {
        let result = try tool.run(["verify", "--json"] + extra)
        return (result.status, try result.object())
    }

    @Test func aGoodJournalVerifiesAndPrintsItsHead() throws {
        let (tool, lines) = try journal()
        defer { tool.remove() }
        let (status, report) = try verify(tool)
        #expect(status == 0)
        #expect(report["ok"] as? Bool == true)
        #expect(report["events"] as? Int == 9)
        let head = report["head"] as! [String: Any]
        #expect(head["seq"] as? Int == 9)
        #expect(head["hash"] as? String == SHA256.hash(lines[8]).hex)
        #expect(report["error"] == nil)
        let text = try tool.run(["verify"])
        #expect(text.stdout == "ok: 9 events verify; audit head 9:\(SHA256.hash(lines[8]).hex)\n")
    }

    @Test func aChangedActorIsNamed() throws {
        let (tool, lines) = try journal()
        defer { tool.remove() }
        var changed = lines
        changed[8] = Array(String(decoding: lines[8], as: UTF8.self).replacingOccurrences(of: "\"actor\":\"ben\"", with: "\"actor\":\"eve\"").utf8)
        #expect(changed[8] != lines[8])
        // the purchase is the last line: its own prev still matches, so only the recorded head can tell
        write(changed, tool)
        let head = "9:\(SHA256.hash(lines[8]).hex)"
        let (status, report) = try verify(tool, ["--expect-head", head])
        #expect(status == 1)
        #expect((report["error"] as? [String: Any])?["line"] as? Int == 9)
        // the actor of a purchase in the middle
        var middle = lines
        middle[3] = Array(String(decoding: lines[3], as: UTF8.self).replacingOccurrences(of: "\"actor\":\"ana\"", with: "\"actor\":\"eve\"").utf8)
        write(middle, tool)
        let (status2, report2) = try verify(tool)
        #expect(status2 == 1)
        let error = report2["error"] as! [String: Any]
        #expect(error["line"] as? Int == 4)
        #expect(error["offset"] as? Int == lines[0..<3].reduce(0) { $0 + $1.count + 1 })
        #expect(report2["events"] as? Int == 3)
    }

    @Test func aDeletedSwappedOrForeignLineIsNamed() throws {
        let (tool, lines) = try journal()
        defer { tool.remove() }
        var deleted = lines
        deleted.remove(at: 4)
        write(deleted, tool)
        #expect((try verify(tool).1["error"] as? [String: Any])?["line"] as? Int == 5)
        var swapped = lines
        swapped.swapAt(5, 6)
        write(swapped, tool)
        #expect((try verify(tool).1["error"] as? [String: Any])?["line"] as? Int == 6)
        // a line appended by someone who did not know the hash of the last one
        var recorded = try EventLineCodec.decode(lines[8])
        recorded.seq = 10
        recorded.id = EventID()
        recorded.event = .itemRenamed(item: ItemID("00000000-0000-0000-0000-000000000001")!, name: "Caviar")
        recorded.prev = SHA256.hash(lines[7])
        write(lines + [EventLineCodec.encode(recorded)], tool)
        let (status, report) = try verify(tool)
        #expect(status == 1)
        #expect((report["error"] as? [String: Any])?["line"] as? Int == 10)
        #expect(report["events"] as? Int == 9)
    }

    @Test func anExpectedHeadDetectsTruncation() throws {
        let (tool, lines) = try journal()
        defer { tool.remove() }
        let head = "9:\(SHA256.hash(lines[8]).hex)"
        #expect(try verify(tool, ["--expect-head", head]).0 == 0)
        write(Array(lines.prefix(7)), tool)
        let (status, report) = try verify(tool, ["--expect-head", head])
        #expect(status == 1)
        #expect(((report["error"] as? [String: Any])?["reason"] as? String)?.contains("truncated") == true)
        #expect(try verify(tool, ["--expect-head", "7:\(SHA256.hash(lines[6]).hex)"]).0 == 0, "a shorter recorded head is still a prefix")
    }

    @Test func repairShowsThenCutsOnlyATornTail() throws {
        let (tool, lines) = try journal()
        defer { tool.remove() }
        let complete = Scratch.bytes(tool.path("shop.ndjson"))
        let torn = Array(#"{"seq":10,"id":"0000"#.utf8)
        Scratch.write(complete + torn, to: tool.path("shop.ndjson"))
        let show = try tool.run(["repair"])
        #expect(show.status == 1)
        #expect(show.stdout.contains("line 10 at byte offset \(complete.count) was never completed: 20 bytes without a newline"))
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == complete + torn, "without --fix nothing changes")
        let fix = try tool.run(["repair", "--fix", "--json"])
        #expect(fix.status == 0)
        let answer = try fix.object()
        #expect(answer["status"] as? String == "repaired")
        let backup = try #require(answer["backup"] as? String)
        #expect(Scratch.bytes(backup.hasPrefix("/") ? backup : tool.path(backup)) == torn)
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == complete)
        #expect(try tool.run(["repair"]).status == 0)
        // damage in the middle is refused, and the file is left as it is
        var damaged = lines
        damaged[2][20] ^= 0x01
        write(damaged, tool)
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let refused = try tool.run(["repair", "--fix"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("not repaired"))
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before)
    }
}

@Suite(.enabled(if: Fixtures.sl17 != nil, Comment(rawValue: Fixtures.sl17Missing)))
struct SL17CommandTests {
    @Test func importTwiceExportAndImportAgainGiveTheSameViews() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let first = try tool.run(["import-sl17", Fixtures.sl17Path, "--currency", "USD", "--time-zone", "America/New_York", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let summary = try first.object()
        #expect(summary["locations"] as? Int == 24)
        #expect(summary["items"] as? Int == 147)
        #expect(summary["onList"] as? Int == 12)
        let locations = try tool.run(["view", "locations", "--json"]).object()["locations"] as! [[String: Any]]
        #expect(locations.count == 24)
        #expect(locations.last?["name"] as? String == "Unknown Location")
        #expect(locations.first?["name"] as? String == "Fruits & Vegetables")
        let items = try tool.run(["view", "all-items-by-name", "--json"]).object()["items"] as! [[String: Any]]
        #expect(items.count == 147)
        #expect(items.allSatisfy { ($0["name"] as! String) == ($0["name"] as! String).trimmingCharacters(in: .whitespaces) })
        let list = try tool.run(["view", "shopping-list-by-location", "--list", "Shopping List", "--json"]).object()
        #expect(list["remaining"] as? Int == 12)
        let unknown = locations.last!
        let color = unknown["color"] as! [String: Any]
        #expect(color["opacity"] as? Double == 0.5, "colors kept")

        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let second = try tool.run(["import-sl17", Fixtures.sl17Path])
        #expect(second.status == 0)
        #expect(second.stdout.contains("nothing to import"))
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before, "importing again appends nothing")

        #expect(try tool.run(["export-sl17", "out.json"]).status == 0)
        #expect(try tool.run(["export-sl17", "out.json"]).status == 2, "no silent overwrite")
        let again = try tool.run(["import-sl17", "out.json", "--journal", "copy.ndjson", "--currency", "USD", "--time-zone", "America/New_York"])
        #expect(again.status == 0, "\(again.stderr)")
        for view in ["locations", "all-items-by-purchase-date", "shopping-list-by-location", "stats"] {
            var original = try tool.run(["view", view, "--json"]).object()
            var copy = try tool.run(["view", view, "--journal", "copy.ndjson", "--json"]).object()
            for key in ["asOf", "list"] { original[key] = nil; copy[key] = nil }
            #expect(NSDictionary(dictionary: original) == NSDictionary(dictionary: copy), "\(view)")
        }
        let names = { (path: String) throws -> [String] in
            (try tool.run(["view", "all-items-by-name", "--journal", path, "--json"]).object()["items"] as! [[String: Any]])
                .map { "\($0["id"]!) \($0["name"]!) \($0["location"]!) \(($0["onLists"] as! [Any]).count)" }
        }
        #expect(try names("shop.ndjson") == names("copy.ndjson"))
    }

    @Test func aFileThatIsNotAnArchiveWritesNothing() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        Scratch.write(Array(#"{"locations": []}"#.utf8), to: tool.path("bad.json"))
        let result = try tool.run(["import-sl17", "bad.json"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("bad.json is not a ShoppingList17 archive: an archive is a JSON array of locations"))
        #expect(!FileManager.default.fileExists(atPath: tool.path("shop.ndjson")))
        let missing = try tool.run(["import-sl17", "nowhere.json"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("cannot read nowhere.json"))
    }
}
