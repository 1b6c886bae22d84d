import Foundation
import Testing
import ShopEvents
import ShopTestSupport

let allCommands = ["demo", "apply", "view", "audit", "stats", "history", "verify", "repair", "import-sl17", "export-sl17", "snapshot", "report"]
let allViews = ["shopping-list-by-location", "shopping-list-by-name", "list-detail", "lists", "deleted-lists", "locations",
                "all-items-by-name", "all-items-by-purchase-date", "audit", "stats", "share-text", "members"]

/// A small journal written through `apply`, the way a script would.
let householdCommands = """
{"type":"CreateHousehold","id":"00000000-0000-0000-0000-00000000C001","actor":"ana","data":{"household":"00000000-0000-0000-0000-0000000000AA","name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}
{"type":"CreateLocation","data":{"location":"00000000-0000-0000-0000-000000000051","name":"Bakery"}}
{"type":"CreateLocation","data":{"location":"00000000-0000-0000-0000-000000000052","name":"Dairy"}}
{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-000000000001","name":"Milk","location":"00000000-0000-0000-0000-000000000052","unitPrice":119}}
{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-000000000002","name":"Bread","location":"00000000-0000-0000-0000-000000000051"}}
{"type":"CreateList","data":{"list":"00000000-0000-0000-0000-000000000010","name":"Weekly","priority":"high"}}
{"type":"AddItemToList","data":{"list":"00000000-0000-0000-0000-000000000010","item":"00000000-0000-0000-0000-000000000001","quantity":2}}
{"type":"AddItemToList","data":{"list":"00000000-0000-0000-0000-000000000010","item":"00000000-0000-0000-0000-000000000002"}}
{"type":"PurchaseItem","actor":"ben","data":{"purchase":"00000000-0000-0000-0000-000000000020","item":"00000000-0000-0000-0000-000000000002","list":"00000000-0000-0000-0000-000000000010","unitPrice":250}}

"""

extension ToolRunner {
    /// A runner with the small household in ./shop.ndjson.
    static func withHousehold() throws -> ToolRunner {
        let tool = ToolRunner()
        let result = try tool.run(["apply", "--actor", "ana", "--json"], stdin: householdCommands)
        precondition(result.status == 0, "apply failed: \(result.stdout) \(result.stderr)")
        return tool
    }
}

@Suite struct HelpTests {
    @Test func helpListsEveryCommandWithOneLineEach() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let result = try tool.run(["--help"])
        #expect(result.status == 0)
        for command in allCommands {
            #expect(result.stdout.split(separator: "\n").contains { $0.hasPrefix("  \(command) ") }, "\(command)")
        }
        for command in allCommands {
            let help = try tool.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("Usage: shop-replay \(command)"), "\(command)")
        }
    }

    @Test func usageErrorsSayWhatWasExpectedAndExit2() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let cases: [([String], String)] = [
            (["frobnicate"], "unknown command \"frobnicate\""),
            (["view"], "which view?"),
            (["view", "shopping-list"], "there is no view \"shopping-list\""),
            (["view", "lists", "--colour"], "view has no option --colour"),
            (["view", "lists", "--as-of", "yesterday"], "--as-of expects"),
            (["view", "list-detail", "--list", "Holiday"], "there is no list named \"Holiday\"; the lists are Weekly"),
            (["view", "lists", "--list", "Weekly"], "--list is for the list views"),
            (["history"], "give exactly one of --item, --list, --location, --store or --member"),
            (["verify", "--expect-head", "12:abc"], "--expect-head expects SEQ:HASH"),
            (["demo", "--months", "99"], "--months expects a whole number from 1 to 24"),
            (["audit", "--item", "Caviar"], "there is no item named \"Caviar\""),
            (["view", "lists", "--journal"], "--journal needs a value"),
        ]
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        for (arguments, message) in cases {
            let result = try tool.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!result.stderr.contains("Fatal error"))
        }
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before, "nothing is written on any error")
    }

    @Test func badJournalsGetOneClearLineAndExit3() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let missing = try tool.run(["view", "lists"])
        #expect(missing.status == 3)
        // The path as the journal was opened: made absolute, so that it names the file wherever it is read.
        #expect(missing.stderr == "shop-replay view: there is no journal at \(tool.path("shop.ndjson")) (give --journal PATH or set SHOP_JOURNAL)\n")
        #expect(!FileManager.default.fileExists(atPath: tool.path("shop.ndjson")), "reading creates nothing")
        Scratch.write(Array("[{\"seq\":1}]\n".utf8), to: tool.path("array.json"))
        Scratch.write([0x00, 0xFF, 0xFE, 0x0A, 0x89, 0x50, 0x4E, 0x47, 0x0A], to: tool.path("binary.bin"))
        for file in ["array.json", "binary.bin"] {
            let before = Scratch.bytes(tool.path(file))
            for arguments in [["view", "lists"], ["stats"], ["apply"], ["audit"]] {
                let result = try tool.run(arguments + ["--journal", file], stdin: "")
                #expect(result.status == 3, "\(arguments) \(file)")
                #expect(result.stderr.contains("is damaged or is not a ShopEvents journal: line 1"), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
            #expect(Scratch.bytes(tool.path(file)) == before)
        }
        let env = try tool.run(["view", "lists"], environment: ["SHOP_JOURNAL": "elsewhere.ndjson"])
        #expect(env.stderr.contains("there is no journal at \(tool.path("elsewhere.ndjson"))"))
    }
}

@Suite struct ApplyTests {
    @Test func answersOneLinePerCommand() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let result = try tool.run(["apply", "--actor", "ana", "--json"], stdin: householdCommands)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(lines.count == 9)
        #expect(lines.allSatisfy { $0["ok"] as? Bool == true })
        #expect(lines[0]["command"] as? String == "00000000-0000-0000-0000-00000000C001")
        #expect(lines.map { $0["seqs"] as? [Int] ?? [] } == (1...9).map { [$0] })
        let events = try JournalReader.readAll(path: tool.path("shop.ndjson"))
        #expect(events.map(\.actor) == ["ana", "ana", "ana", "ana", "ana", "ana", "ana", "ana", "ben"])
        #expect(events.allSatisfy { $0.device == "shop-replay" })
    }

    @Test func rejectionsRetriesAndBadLines() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let input = """
        {"type":"AddItemToList","id":"00000000-0000-0000-0000-00000000C002","data":{"list":"00000000-0000-0000-0000-000000000010","item":"00000000-0000-0000-0000-000000000001"}}
        {"type":"CreateHousehold","id":"00000000-0000-0000-0000-00000000C001","data":{"name":"Again","currency":"EUR","timeZone":"UTC"}}
        {"type":"CreateItem","data":{"name":"Eggs","colour":"brown"}}
        not json at all

        """
        let result = try tool.run(["apply", "--json"], stdin: input)
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(lines.count == 4)
        #expect((lines[0]["error"] as? [String: Any])?["code"] as? String == "already_on_list")
        #expect(lines[0]["ok"] as? Bool == false)
        #expect(lines[1]["ok"] as? Bool == true, "a retried command id answers with its first result")
        #expect(lines[1]["seqs"] as? [Int] == [1])
        #expect((lines[2]["error"] as? [String: Any])?["code"] as? String == "unknown_field")
        #expect((lines[3]["error"] as? [String: Any])?["code"] as? String == "malformed_json")
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before, "rejected commands write nothing")
        let text = try tool.run(["apply"], stdin: #"{"type":"RenameItem","data":{"item":"00000000-0000-0000-0000-000000000001","name":"Oat milk"}}"# + "\n")
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("ok "))
        #expect(text.stdout.contains("seq 10"))
    }

    /// An apply waiting for its next line holds no lock: another writer writes meanwhile.
    @Test func anApplyWaitingForInputLetsOthersWrite() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let first = try ChildProcess(ToolRunner.binary, ["apply", "--json", "--journal", tool.path("shop.ndjson")], stdin: .pipe, stdout: .pipe)
        defer { first.closeInput(); first.waitForExit() }
        first.write(#"{"type":"CreateList","data":{"name":"First"}}"# + "\n")
        #expect(first.readLine(timeout: 20)?.contains(#""seqs":[10]"#) == true)
        let second = try tool.run(["apply", "--wait", "0"], stdin: #"{"type":"CreateList","data":{"name":"Second"}}"# + "\n")
        #expect(second.status == 0, "\(second.stderr)")
        // The first one folds the second's event before its next write, and names resolve against it.
        first.write(#"{"type":"RenameList","data":{"list":"second","name":"Second, renamed"}}"# + "\n")
        #expect(first.readLine(timeout: 20)?.contains(#""seqs":[12]"#) == true)
        first.closeInput()
        #expect(first.waitForExit() == 0)
        #expect(try JournalVerifier.verify(path: tool.path("shop.ndjson")).ok)
    }

    /// A writer that holds the lock for its whole run (a `Journal`) makes apply wait, then fail naming it.
    @Test func aSecondWriterGetsJournalLockedNamingTheHolder() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let holder = try Journal.open(path: tool.path("shop.ndjson"), options: .init(actor: "ana"))
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let second = try tool.run(["apply", "--wait", "0"], stdin: #"{"type":"CreateList","data":{"name":"Party"}}"# + "\n")
        #expect(second.status == 3)
        #expect(second.stderr.contains("journal_locked"), "\(second.stderr)")
        #expect(second.stderr.contains("process \(getpid())"), "\(second.stderr)")
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before)
        holder.close()
        #expect(try tool.run(["apply", "--wait", "0"], stdin: #"{"type":"CreateList","data":{"name":"Party"}}"# + "\n").status == 0)
    }
}

@Suite struct ViewCommandTests {
    @Test func everyViewAnswersInJSONWithItsShape() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let keys: [String: [String]] = [
            "shopping-list-by-location": ["list", "sections", "remaining", "bought", "estimatedTotal", "unpriced"],
            "shopping-list-by-name": ["list", "sections", "remaining", "bought", "estimatedTotal", "unpriced"],
            "list-detail": ["list", "entries", "bought", "total"], "lists": ["lists"], "deleted-lists": ["lists"],
            "locations": ["locations"], "all-items-by-name": ["items"], "all-items-by-purchase-date": ["sections"],
            "audit": ["purchases"], "stats": ["items", "months", "actors", "locations", "trips"], "share-text": ["list", "text"],
            "members": ["members", "open"],
        ]
        for view in allViews {
            let result = try tool.run(["view", view, "--json"])
            #expect(result.status == 0, "\(view): \(result.stderr)")
            let object = try result.object()
            #expect(object["view"] as? String == view)
            #expect(object["asOf"] as? Int == 9)
            for key in keys[view]! { #expect(object[key] != nil, "\(view) has \(key)") }
            let text = try tool.run(["view", view])
            #expect(text.status == 0)
            #expect(!text.stdout.isEmpty)
        }
        let list = try tool.run(["view", "shopping-list-by-location", "--list", "weekly", "--json"]).object()
        #expect(list["remaining"] as? Int == 1)
        #expect(list["bought"] as? Int == 1)
        #expect(list["estimatedTotal"] as? Int == 238)
        let sections = list["sections"] as! [[String: Any]]
        #expect(sections.map { $0["title"] as? String } == ["Dairy"])
        let entry = (sections[0]["entries"] as! [[String: Any]])[0]
        #expect(entry["name"] as? String == "Milk")
        #expect(entry["quantity"] as? Int == 2)
        #expect(entry["available"] as? Bool == true)
        #expect(entry["unitPrice"] as? Int == 119)
        let asOf = try tool.run(["view", "list-detail", "--as-of", "7", "--json"]).object()
        #expect(asOf["asOf"] as? Int == 7)
        #expect(asOf["total"] as? Int == 1)
        let share = try tool.run(["view", "share-text"])
        #expect(share.stdout == "Weekly — 1 to buy\n\nDairy\n- Milk ×2\n")
    }

    @Test func auditStatsAndHistory() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let audit = try tool.run(["audit", "--actor", "ben", "--json"]).object()
        let purchases = audit["purchases"] as! [[String: Any]]
        #expect(purchases.count == 1)
        #expect(purchases[0]["itemName"] as? String == "Bread")
        #expect(purchases[0]["actor"] as? String == "ben")
        #expect(purchases[0]["unitPrice"] as? Int == 250)
        #expect(purchases[0]["listName"] as? String == "Weekly")
        #expect(purchases[0]["locationName"] as? String == "Bakery")
        #expect(purchases[0]["reverted"] as? Bool == false)
        #expect((try tool.run(["audit", "--actor", "ana", "--json"]).object()["purchases"] as! [Any]).isEmpty)
        #expect((try tool.run(["audit", "--from", "2999-01-01", "--json"]).object()["purchases"] as! [Any]).isEmpty)
        let stats = try tool.run(["stats", "--json"]).object()
        #expect((stats["actors"] as! [[String: Any]]).map { $0["actor"] as? String } == ["ben"])
        #expect((stats["trips"] as! [String: Any])["count"] as? Int == 0)
        let history = try tool.run(["history", "--item", "bread", "--json"]).object()
        #expect((history["events"] as! [[String: Any]]).map { $0["type"] as? String }
                == ["ItemCreated", "ItemAddedToList", "ItemPurchased"])
        let location = try tool.run(["history", "--location", "Dairy", "--json"]).object()
        #expect((location["events"] as! [[String: Any]]).map { $0["type"] as? String } == ["LocationCreated", "ItemCreated"])
        let text = try tool.run(["history", "--list", "Weekly"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("ItemPurchased"))
    }
}

@Suite struct DemoTests {
    @Test func theDemoWritesAVerifiableDeterministicJournalAndShowsIt() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let first = try tool.run(["demo", "--months", "2", "--seed", "7"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Weekly — shopping list by location"))
        #expect(first.stdout.contains("Last purchases, from the audit"))
        #expect(first.stdout.contains("Audit head "))
        let bytes = Scratch.bytes(tool.path("shop-demo.ndjson"))
        #expect(bytes.count > 50_000)
        #expect(try tool.run(["verify", "--journal", "shop-demo.ndjson"]).status == 0)
        let again = try tool.run(["demo", "--months", "2", "--seed", "7", "--json"])
        #expect(again.status == 0)
        #expect(Scratch.bytes(tool.path("shop-demo.ndjson")) == bytes, "the same seed writes the same journal")
        let json = try again.object()
        #expect(json["events"] as? Int == (try JournalReader.readAll(path: tool.path("shop-demo.ndjson"))).count)
        #expect((json["shoppingList"] as? [String: Any])?["view"] as? String == "shopping-list-by-location")
        Scratch.write(Array("my own notes\n".utf8), to: tool.path("notes.txt"))
        let refused = try tool.run(["demo", "--journal", "notes.txt"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("exists and is not a ShopEvents journal"))
        #expect(Scratch.bytes(tool.path("notes.txt")) == Array("my own notes\n".utf8))
    }
}
