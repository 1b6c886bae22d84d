import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// What a new user tripped over, each run as that user would: the built tool
/// as a separate process.
@Suite struct NewUserTests {
    @Test func applyOnATornJournalSaysItCutTheTail() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        let before = Scratch.bytes(journal)
        Scratch.write(before + Array(#"{"seq":10,"id":"#.utf8), to: journal)
        let result = try tool.run(["apply", "--json"], stdin: #"{"type":"CreateList","data":{"name":"Party"}}"# + "\n")
        #expect(result.status == 0)
        #expect(result.stderr.contains("a crash had left its end unfinished; cut a torn last line: 15 bytes from line 10 (byte offset \(before.count))"))
        let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        let recovered = answer["recoveredTornTail"] as? [String: Any] ?? [:]
        #expect(recovered["line"] as? Int == 10)
        #expect(recovered["offset"] as? Int == before.count)
        #expect(recovered["length"] as? Int == 15)
        let backup = try #require(recovered["backup"] as? String)
        #expect(backup.hasPrefix(tool.path("shop.ndjson.torn-")), "the backup is named by the journal's absolute path")
        #expect(Scratch.bytes(backup) == Array(#"{"seq":10,"id":"#.utf8))
        #expect(answer["seqs"] as? [Int] == [10])
    }

    @Test func repairAndViewAgreeOnAFileThatIsNotAJournal() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        Scratch.write(Array("hello".utf8), to: tool.path("h.ndjson"))
        let show = try tool.run(["repair", "--journal", "h.ndjson"])
        let fix = try tool.run(["repair", "--fix", "--journal", "h.ndjson"])
        #expect(show.status == 1)
        #expect(fix.status == 1)
        for result in [show, fix] {
            #expect(result.stdout.contains("not a torn write"))
            #expect(!result.stdout.contains("--fix to back them up"), "repair must not suggest a --fix that refuses")
        }
        let view = try tool.run(["view", "lists", "--journal", "h.ndjson"])
        #expect(view.status == 3)
        #expect(view.stdout.isEmpty)
        #expect(view.stderr.contains("the file holds no complete journal line at all"))
        #expect(Scratch.bytes(tool.path("h.ndjson")) == Array("hello".utf8))
    }

    /// 23:30 UTC on 30 November is 00:30 on 1 December in Berlin. (A past year: a time ahead of the clock is `in_future`.)
    @Test func daysAndTimesAreTheHouseholdsTimeZone() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let commands = """
        {"type":"CreateHousehold","at":"2025-11-01T10:00:00.000Z","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}
        {"type":"CreateItem","at":"2025-11-01T10:00:00.000Z","data":{"name":"Milk","unitPrice":119}}
        {"type":"PurchaseItem","at":"2025-11-30T23:30:00.000Z","data":{"item":"Milk"}}

        """
        #expect(try tool.run(["apply", "--actor", "ana"], stdin: commands).status == 0)
        let text = try tool.run(["audit"])
        #expect(text.stdout.contains("2025-12-01 00:30"))
        #expect(text.stdout.contains("times in Europe/Berlin"))
        let december = try tool.run(["audit", "--from", "2025-12-01", "--json"]).object()
        #expect((december["purchases"] as? [Any])?.count == 1)
        let november = try tool.run(["audit", "--from", "2025-11-01", "--to", "2025-11-30", "--json"]).object()
        #expect((november["purchases"] as? [Any])?.count == 0)
        let months = (try tool.run(["stats", "--json"]).object()["months"] as? [[String: Any]])?.map { $0["month"] as? String }
        #expect(months == ["2025-12"])
        // As of the end of 30 November in Berlin, the purchase has not happened yet.
        let asOf = try tool.run(["view", "audit", "--as-of", "2025-11-30", "--json"]).object()
        #expect(asOf["asOf"] as? Int == 2)
        let json = try tool.run(["audit", "--json"]).object()
        #expect((json["purchases"] as? [[String: Any]])?.first?["purchasedAt"] as? String == "2025-11-30T23:30:00.000Z", "JSON keeps journal timestamps")
    }

    @Test func demoRunAgainKeepsTheEventsTheUserAdded() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let added = try tool.run(["apply", "--actor", "ana", "--journal", "shop-demo.ndjson"], stdin: #"{"type":"CreateList","data":{"name":"Mine"}}"# + "\n")
        #expect(added.status == 0)
        let withMine = Scratch.bytes(tool.path("shop-demo.ndjson"))
        let again = try tool.run(["demo"])
        #expect(again.status == 0)
        let backups = try FileManager.default.contentsOfDirectory(atPath: tool.folder.path).filter { $0.hasPrefix("shop-demo.ndjson.old-") }
        #expect(backups.count == 1)
        #expect(again.stderr.contains("it is kept, untouched, as \(tool.path("shop-demo.ndjson.old-"))"))
        #expect(Scratch.bytes(tool.path(backups[0])) == withMine, "the old journal, every byte of it")
        #expect(Scratch.bytes(tool.path("shop-demo.ndjson")) != withMine)
        #expect(FileManager.default.fileExists(atPath: tool.path("shop-demo.ndjson.lock")))
    }

    @Test func exportRefusesAnUnknownListAndSaysWhichListItUsed() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let unknown = try tool.run(["export-sl17", "x.json", "--list", "No Such List"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("there is no live list named \"No Such List\"; the lists are Weekly"))
        #expect(!FileManager.default.fileExists(atPath: tool.path("x.json")))
        // The only list is Weekly (not "Shopping List"): that one is exported, and said.
        let chosen = try tool.run(["export-sl17", "x.json"])
        #expect(chosen.status == 0)
        #expect(chosen.stdout.contains("1 on the list from \"Weekly\""))
        let archive = try SL17Archive.parse(Scratch.bytes(tool.path("x.json")))
        #expect(archive.locations.flatMap(\.items).filter(\.onList).map(\.name) == ["Milk"])
    }

    @Test func actorsOfWhiteSpaceOrInvalidUTF8AreRejected() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let blank = try tool.run(["apply", "--actor", "   "], stdin: #"{"type":"CreateList","data":{"name":"X"}}"# + "\n")
        #expect(blank.status == 2)
        #expect(blank.stderr.contains("invalid_actor"))
        let inCommand = try tool.run(["apply", "--json"], stdin: #"{"type":"CreateList","actor":"  ","data":{"name":"X"}}"# + "\n")
        #expect(inCommand.status == 1)
        #expect(inCommand.stdout.contains(#""code":"invalid_actor""#))
        // A tab is a control character: no name, actor or device may hold one.
        let tab = try tool.run(["apply", "--json"], stdin: #"{"type":"CreateList","actor":" \t ","data":{"name":"X"}}"# + "\n")
        #expect(tab.status == 1)
        #expect(tab.stdout.contains(#""code":"invalid_name""#))
        // Bytes that are not UTF-8, through a shell, as a terminal would pass them.
        let invalid = try tool.run(["-c", #"printf '{"type":"CreateList","data":{"name":"X"}}\n' | "$0" apply --actor "$(printf 'an\377a')""#, ToolRunner.binary],
                                   executable: "/bin/sh")
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("invalid_actor"))
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before, "nothing written")
    }

    @Test func applyTakesNamesAndSaysWhatItCreated() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let commands = """
        {"type":"CreateList","data":{"name":"Weekend"}}
        {"type":"AddItemToList","data":{"list":"weekend","item":"MILK","quantity":3}}
        {"type":"PurchaseItem","data":{"list":"Weekend","item":"milk"}}
        {"type":"AddItemToList","data":{"list":"Weekend","item":"Caviar"}}
        {"type":"ReorderLocations","data":{"order":["dairy","Bakery"]}}

        """
        let result = try tool.run(["apply", "--json"], stdin: commands)
        #expect(result.status == 1)
        let answers = result.stdout.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        #expect(answers.count == 5)
        let list = try #require((answers[0]["created"] as? [String: String])?["list"])
        #expect((answers[1]["created"] as? [String: String]) == [:])
        let purchase = try #require((answers[2]["created"] as? [String: String])?["purchase"])
        #expect((answers[3]["error"] as? [String: Any])?["code"] as? String == "unknown_item")
        #expect(answers[4]["ok"] as? Bool == true)
        let events = try JournalReader.readAll(path: tool.path("shop.ndjson"))
        #expect(events.contains { $0.event == .itemAddedToList(list: ListID(list)!, item: ItemID("00000000-0000-0000-0000-000000000001")!, quantity: 3) })
        #expect(events.contains { if case let .itemPurchased(p, _, _, _, _, _, _, _) = $0.event { p == PurchaseID(purchase)! } else { false } })
        #expect(events.last?.event == .locationsReordered(order: [LocationID("00000000-0000-0000-0000-000000000052")!, LocationID("00000000-0000-0000-0000-000000000051")!]))
        // The purchase id that was answered is the one RevertPurchase needs.
        let revert = try tool.run(["apply"], stdin: #"{"type":"RevertPurchase","data":{"purchase":"\#(purchase)"}}"# + "\n")
        #expect(revert.status == 0)
    }

    @Test func applyHelpListsEveryCommandWithItsFields() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let help = try tool.run(["apply", "--help"]).stdout
        for type in CommandType.allCases {
            let line = help.split(separator: "\n").first { $0.hasPrefix("  \(type.rawValue) ") }
            #expect(line?.hasSuffix(CommandCatalog.fields(of: type).joined(separator: ", ")) == true, "\(type.rawValue)")
        }
        #expect(help.contains("--wait SECONDS"))
    }

    /// A program that writes one command and waits for its answer, through pipes both ways.
    @Test func applyAnswersEachCommandAtOnceThroughPipes() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let apply = try ChildProcess(ToolRunner.binary, ["apply", "--json", "--journal", tool.path("shop.ndjson")], stdin: .pipe, stdout: .pipe)
        for name in ["First", "Second", "Third"] {
            apply.write(#"{"type":"CreateList","data":{"name":"\#(name)"}}"# + "\n")
            let answer = try #require(apply.readLine(timeout: 20), "no answer to \(name) while stdin stays open")
            #expect(answer.hasPrefix(#"{"ok":true"#))
        }
        apply.write("not json\n")
        #expect(apply.readLine(timeout: 20)?.contains(#""code":"malformed_json""#) == true)
        apply.closeInput()
        #expect(apply.waitForExit() == 1)
    }

    /// A changed line: verify and the views name the same line.
    @Test func verifyAndViewNameTheSameLineAndSayWhatToDoNext() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        var lines = Scratch.bytes(journal).split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        lines[4] = lines[4].replacingOccurrences(of: #""actor":"ana""#, with: #""actor":"eve""#)
        Scratch.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: journal)
        let verify = try tool.run(["verify"])
        let view = try tool.run(["view", "lists"])
        #expect(verify.status == 1)
        #expect(view.status == 3)
        #expect(verify.stdout.contains("line 5 (byte offset"))
        #expect(view.stderr.contains("line 5 (byte offset"))
        #expect(!verify.stdout.contains("inspect it with `shop-replay verify`"))
        #expect(verify.stdout.contains("What next"))
    }
}
