import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// What a new user tripped over from a fresh clone (issue 34), each run as
/// that user would: the built tool as a separate process.
@Suite struct MistypedHubTests {
    private func files(_ tool: ToolRunner) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: tool.folder.path).filter { !$0.hasPrefix("std") }.sorted()
    }

    @Test func cloningAHubThatIsNotThereFailsNamingItAndMakesNothing() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let typo = tool.path("typo-hub.ndjson")
        let clone = try tool.run(["clone", "--hub", typo, "--journal", "phone.ndjson"])
        #expect(clone.status == 3)
        #expect(clone.stdout.isEmpty)
        #expect(clone.stderr.contains("shop-replay clone: no_journal: the hub has no journal at \(typo)"))
        #expect(try files(tool) == [], "neither the replica nor the hub was made")
    }

    @Test func aNewHubIsAskedForOnPurposeAndItsCloneSaysItIsEmpty() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let hub = tool.path("hub.ndjson")
        let clone = try tool.run(["clone", "--hub", hub, "--new-hub", "--journal", "phone.ndjson"])
        #expect(clone.status == 0)
        #expect(clone.stdout.contains("the hub's journal is empty: a new hub, with no household yet"))
        #expect(FileManager.default.fileExists(atPath: hub))
        // Its first command starts the household on the hub; the stored hub needs no --create from now on.
        #expect(try tool.run(["apply", "--journal", "phone.ndjson"], stdin: #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"UTC"}}"# + "\n").status == 0)
        #expect(try tool.run(["sync", "--journal", "phone.ndjson"]).status == 0)
        #expect(Scratch.bytes(hub) == Scratch.bytes(tool.path("phone.ndjson")))
        #expect(try JournalReader.readAll(path: hub).map(\.event.typeName) == ["HouseholdCreated"])

        // --new-hub takes a plain path only.
        let command = try tool.run(["clone", "--hub", "ssh host shop-replay hub", "--new-hub", "--journal", "other.ndjson"])
        #expect(command.status == 2)
        #expect(command.stderr.contains("--new-hub takes a plain path"))
    }

    @Test func aHubWhoseJournalWentMissingIsSaidSoNotDivergence() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let hub = tool.path("hub.ndjson")
        #expect(try tool.run(["clone", "--hub", hub, "--new-hub", "--journal", "phone.ndjson"]).status == 0)
        #expect(try tool.run(["apply", "--journal", "phone.ndjson"], stdin: #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"UTC"}}"# + "\n").status == 0)
        #expect(try tool.run(["sync", "--journal", "phone.ndjson"]).status == 0)
        try FileManager.default.moveItem(atPath: hub, toPath: tool.path("moved.ndjson"))
        let sync = try tool.run(["sync", "--journal", "phone.ndjson"])
        #expect(sync.status == 3)
        #expect(sync.stderr.contains("no_journal: the hub has no journal at \(hub)"))
        #expect(!sync.stderr.contains("diverged"))
        #expect(!FileManager.default.fileExists(atPath: hub), "sync never makes a new hub")
    }

    @Test func aHubOnAPathWithNoJournalRefusesEveryRequest() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let requests = [#"{"hello":{"protocol":1,"device":"d","actor":"a"}}"#,
                        #"{"pull":{"after":0,"hash":"\#(String(repeating: "0", count: 64))"}}"#,
                        #"{"push":{"commands":[{"type":"CreateHousehold","id":"\#(UUID().uuidString)","actor":"a","data":{"name":"H","currency":"EUR","timeZone":"UTC"}}]}}"#]
        let result = try tool.run(["hub", "--journal", "/nonexistent/x.ndjson"], stdin: requests.joined(separator: "\n") + "\n")
        #expect(result.status == 3)
        let answer = #"{"error":{"code":"no_journal","message":"the hub has no journal at /nonexistent/x.ndjson: the path is wrong, or the journal was moved or deleted (a new hub must be asked for on purpose)"}}"#
        #expect(result.stdout == String(repeating: answer + "\n", count: 3))
        #expect(result.stderr.contains("there is no journal at /nonexistent/x.ndjson"))

        let create = try tool.run(["hub", "--journal", "/nonexistent/x.ndjson", "--create"], stdin: requests[0] + "\n")
        #expect(create.status == 3, "a new hub where its folder does not exist cannot be made")
    }

    @Test func syncRejectedListsWhatTheHubRefusedAndWhy() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let hub = tool.path("hub.ndjson")
        #expect(try tool.run(["apply", "--journal", hub], stdin: #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"UTC"}}"# + "\n").status == 0)
        for phone in ["a", "b"] {
            #expect(try tool.run(["clone", "--hub", hub, "--journal", "\(phone).ndjson", "--device", phone]).status == 0)
        }
        let none = try tool.run(["sync", "--rejected", "--journal", "a.ndjson"])
        #expect(none.status == 0)
        #expect(none.stdout == "nothing was rejected: the hub has taken every command this device sent\n")
        // Both phones create "Milk" offline; the second to sync is refused (name_taken).
        for phone in ["a", "b"] {
            #expect(try tool.run(["apply", "--journal", "\(phone).ndjson"], stdin: #"{"type":"CreateItem","data":{"name":"Milk"}}"# + "\n").status == 0)
        }
        #expect(try tool.run(["sync", "--journal", "a.ndjson"]).status == 0)
        #expect(try tool.run(["sync", "--journal", "b.ndjson"]).status == 1)
        let text = try tool.run(["sync", "--rejected", "--journal", "b.ndjson"])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first == "the hub refused 1 command (kept in b.ndjson.rejected):")
        #expect(lines.last?.hasPrefix("  CreateItem ") == true)
        #expect(lines.last?.contains("name_taken:") == true)
        let json = try tool.run(["sync", "--rejected", "--json", "--journal", "b.ndjson"]).object()
        #expect(json["count"] as? Int == 1)
        let rejected = try #require((json["rejected"] as? [[String: Any]])?.first)
        #expect(rejected["type"] as? String == "CreateItem")
        #expect((rejected["error"] as? [String: Any])?["code"] as? String == "name_taken")
        #expect(((rejected["request"] as? [String: Any])?["data"] as? [String: Any])?["name"] as? String == "Milk")
    }
}

@Suite struct NamesAndTextTests {
    @Test(arguments: ["tab\tname", "new\nline", "nul\u{0}", "bell\u{7}", "del\u{7F}", "esc\u{1B}[31m"])
    func aControlCharacterInANameIsRefused(name: String) throws {
        var state = ShopState.initial
        for event in try ShopDecider.decide(.createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "UTC"), state, actor: "ana") {
            state.apply(event, EventContext(seq: 1, at: Timestamp(millisecondsSince1970: 0), actor: "ana"))
        }
        for command in [Command.createItem(item: ItemID(), name: name, location: nil, details: .none),
                        .createList(list: ListID(), name: name, priority: nil),
                        .createLocation(location: LocationID(), name: name, color: nil),
                        .addMember(member: name, role: .owner)] {
            #expect(throws: RuleViolation.self) { try ShopDecider.decide(command, state, actor: "ana") }
            do { _ = try ShopDecider.decide(command, state, actor: "ana") } catch {
                #expect(error.code == "invalid_name", "\(command)")
            }
        }
        for request in [CommandEnvelope(.createList(list: ListID(), name: "Fine", priority: nil), actor: name),
                        CommandEnvelope(.createList(list: ListID(), name: "Fine", priority: nil), device: name)] {
            do {
                _ = try ShopDecider.decide(request, state, after: JournalEnd(seq: 2, lastAt: nil), now: Timestamp(millisecondsSince1970: 0), defaultActor: "ana")
                Issue.record("accepted \(request)")
            } catch { #expect(error.code == "invalid_name") }
        }
    }

    @Test func aNameWrittenBeforeTheRuleIsShownEscapedNeverRaw() throws {
        // A journal an older build wrote: a list and an item whose names hold a tab, a newline and a NUL.
        let tool = ToolRunner()
        defer { tool.remove() }
        let journal = tool.path("old.ndjson")
        var lines: [String] = []
        var prev = String(repeating: "0", count: 64)
        let household = UUID().uuidString, list = UUID().uuidString, item = UUID().uuidString
        let events: [(String, String)] = [
            ("HouseholdCreated", #"{"household":"\#(household)","name":"Home","currency":"EUR","timeZone":"UTC"}"#),
            ("ListCreated", #"{"list":"\#(list)","name":"tab\tname\nnewline","priority":"normal"}"#),
            ("ItemCreated", #"{"item":"\#(item)","name":"nul\u0000here","location":"00000000-0000-0000-0000-000000000000"}"#),
            ("ItemAddedToList", #"{"list":"\#(list)","item":"\#(item)","quantity":1}"#),
        ]
        for (index, (type, data)) in events.enumerated() {
            let line = #"{"seq":\#(index + 1),"id":"\#(UUID().uuidString)","type":"\#(type)","v":1,"at":"2026-11-01T10:00:00.000Z","actor":"ana","command":"\#(UUID().uuidString)","data":\#(data),"prev":"\#(prev)"}"#
            lines.append(line)
            prev = SHA256.hash(Array(line.utf8)).hex
        }
        Scratch.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: journal)
        for arguments in [["view", "lists"], ["view", "list-detail", "--list", list], ["view", "shopping-list-by-location", "--list", list],
                          ["view", "all-items-by-name"], ["view", "all-items-by-purchase-date"], ["history", "--item", item]] {
            let result = try tool.run(arguments + ["--journal", journal])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let controls = result.stdout.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F }
            #expect(controls.isEmpty, "\(arguments) printed a raw control character")
            #expect(!result.stdout.contains("\nnewline"), "\(arguments) printed a name's newline raw")
        }
        let lists = try tool.run(["view", "lists", "--journal", journal])
        #expect(lists.stdout.contains(#"tab\tname\nnewline"#))
        let items = try tool.run(["view", "all-items-by-name", "--journal", journal])
        #expect(items.stdout.contains(#"nul\u{0}here"#))
        // JSON keeps the name as it is recorded, escaped the JSON way.
        let json = try tool.run(["view", "lists", "--json", "--journal", journal])
        #expect(json.stdout.contains(#""name" : "tab\tname\nnewline""#) || json.stdout.contains(#""name": "tab\tname\nnewline""#))
    }

    @Test func applyHelpListsTheLimitsOfNotesAndPhoto() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let help = try tool.run(["apply", "--help"]).stdout
        #expect(help.contains("notes        text, at most 10000 characters"))
        #expect(help.contains("photo        a file name or URL (never the picture's bytes), at most 2000 characters"))
        #expect(help.contains("category     text, at most 200 characters (empty: none)"))
        #expect(help.contains("name         1 to 200 characters after trimming, no control characters"))
    }
}

@Suite struct ActorTests {
    @Test func withoutAnActorNothingIsWrittenAndTheToolSaysHowToGiveOne() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let command = #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"UTC"}}"# + "\n"
        let result = try tool.run(["import-sl17", "archive.json"], stdin: command, environment: ["USER": ""])
        #expect(result.status == 2)
        #expect(result.stderr.contains("there is no --actor and $USER is not set: give --actor NAME"))
        // apply (v4) refuses each command that names no actor of its own, and writes the others (CommandsByNameToolTests).
        let apply = try tool.run(["apply"], stdin: command, environment: ["USER": ""])
        #expect(apply.status == 1)
        #expect(apply.stdout.contains("missing_actor: line 1: the command names no \"actor\", and there is no --actor and $USER is not set"))
        #expect(!FileManager.default.fileExists(atPath: tool.path("shop.ndjson")))
        #expect(!FileManager.default.fileExists(atPath: tool.path("shop.ndjson.lock")))
        // With --actor, or with $USER, that name is recorded.
        #expect(try tool.run(["apply", "--actor", "ana"], stdin: command, environment: ["USER": ""]).status == 0)
        #expect(try tool.run(["apply"], stdin: #"{"type":"CreateList","data":{"name":"Weekly"}}"# + "\n", environment: ["USER": "ben"]).status == 0)
        #expect(try JournalReader.readAll(path: tool.path("shop.ndjson")).map(\.actor) == ["ana", "ben"])
    }
}

@Suite struct DamageAndBadInputTests {
    @Test func emptyLinesAtTheEndAreShownThenCutLikeATornLine() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        let before = Scratch.bytes(journal)
        let events = try JournalReader.readAll(path: journal).count
        Scratch.write(before + Array("\n  \n".utf8), to: journal)   // `echo >>`, then an editor's indented empty line

        // Views leave them out, saying so; verify and repair show them, with one "What next" each.
        let view = try tool.run(["view", "lists", "--json"])
        #expect(view.status == 0)
        #expect(view.stderr.contains("line \(events + 1) (byte offset \(before.count)) and after: 2 empty lines at the end"))
        let verify = try tool.run(["verify"])
        #expect(verify.status == 1)
        #expect(verify.stdout == """
            FAILED: line \(events + 1) (byte offset \(before.count)): 2 empty lines at the end (4 bytes) — no journal line is empty: an editor or `echo >>` added them
            \(events) events before it verify; their head is \(try JournalReader.head(of: before))
            What next: `shop-replay repair --fix` keeps a copy of the empty lines and cuts them, as the next write would; the \(events) events before them stay.

            """)
        let repair = try tool.run(["repair", "--json"])
        #expect(repair.status == 1)
        let torn = try #require(try repair.object()["torn"] as? [String: Any])
        #expect(torn["emptyLines"] as? Int == 2 && torn["offset"] as? Int == before.count && torn["length"] as? Int == 4)

        // The next write cuts them, keeps a copy, says so, and writes.
        let apply = try tool.run(["apply", "--json"], stdin: #"{"type":"CreateList","data":{"name":"Party"}}"# + "\n")
        #expect(apply.status == 0)
        #expect(apply.stderr.contains("it ended with empty lines; cut 2 empty lines at the end"))
        let recovered = try #require(try apply.object()["recoveredTornTail"] as? [String: Any])
        #expect(recovered["emptyLines"] as? Int == 2)
        #expect(Scratch.bytes(try #require(recovered["backup"] as? String)) == Array("\n  \n".utf8))
        #expect(try tool.run(["verify"]).status == 0)
        #expect(Array(Scratch.bytes(journal).prefix(before.count)) == before)

        // An empty line anywhere but at the end is damage, refused as before.
        Scratch.write(before + Array("\n".utf8) + Array(Scratch.bytes(journal).dropFirst(before.count)), to: journal)
        let middle = try tool.run(["apply"], stdin: #"{"type":"CreateList","data":{"name":"More"}}"# + "\n")
        #expect(middle.status == 3)
        #expect(middle.stderr.contains("line \(events + 1) (byte offset \(before.count))"))
    }

    @Test func verifyGivesOneWhatNextRightForTheDamage() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        let good = Scratch.bytes(journal)
        // An edited price: restore, never repair.
        var edited = String(decoding: good, as: UTF8.self)
        edited = edited.replacingOccurrences(of: #""unitPrice":119"#, with: #""unitPrice":19"#)
        Scratch.write(Array(edited.utf8), to: journal)
        let verify = try tool.run(["verify"])
        #expect(verify.status == 1)
        let advice = verify.stdout.split(separator: "\n").filter { $0.contains("What next") }
        #expect(advice == ["What next: the journal was not changed. Restore it from a copy (or a device's replica), or keep the 3 events before the bad line by copying them to a new journal."])
        #expect(!verify.stdout.contains("repair"))
        // A torn line: repair.
        Scratch.write(good + Array(#"{"seq":9"#.utf8), to: journal)
        let torn = try tool.run(["verify"])
        #expect(torn.stdout.split(separator: "\n").filter { $0.contains("What next") }.count == 1)
        #expect(torn.stdout.contains("What next: `shop-replay repair --fix` keeps a copy of the torn bytes and cuts them"))
    }

    @Test func aJournalCutBackByWholeLinesIsNotWrittenOn() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let journal = tool.path("shop.ndjson")
        #expect(try tool.run(["snapshot"]).status == 0)
        let whole = Scratch.bytes(journal)
        let head = try JournalReader.head(of: whole)
        let cut = Array(whole.prefix(through: whole.dropLast().lastIndex(of: 0x0A)!))   // the last line gone
        Scratch.write(cut, to: journal)
        let apply = try tool.run(["apply"], stdin: #"{"type":"CreateList","data":{"name":"Party"}}"# + "\n")
        #expect(apply.status == 3)
        #expect(apply.stderr == "shop-replay apply: journal_shorter_than_known_head: \(journal) is shorter than its last known head: \(journal).chain records seq \(head.seq) (\(head)) ending at byte \(whole.count), but the journal has \(cut.count) bytes — it was cut back or replaced by an older copy; nothing was written. Restore the lost lines from a copy or a device's replica; a journal started anew on purpose needs that file moved away first\n")
        #expect(Scratch.bytes(journal) == cut)
        // Put back, it is written on as before.
        Scratch.write(whole, to: journal)
        #expect(try tool.run(["apply"], stdin: #"{"type":"CreateList","data":{"name":"Party"}}"# + "\n").status == 0)
    }

    @Test func aLineOverOneMebibyteGetsItsOwnAnswerAndTheRunGoesOn() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let long = #"{"type":"CreateList","data":{"name":""# + String(repeating: "x", count: 1 << 21) + #""}}"#
        let input = [#"{"type":"CreateList","data":{"name":"Before"}}"#, long, #"{"type":"CreateList","data":{"name":"After"}}"#, long]
            .joined(separator: "\n")   // the last without its newline
        for source in ["file", "stdin"] {
            let name = "input-\(source).ndjson"
            Scratch.write(Array(input.utf8), to: tool.path(name))
            let result = source == "file" ? try tool.run(["apply", name, "--json", "--journal", "\(source).ndjson"])
                                          : try tool.run(["apply", "--json", "--journal", "\(source).ndjson"], stdin: input)
            let answers = result.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            try #require(answers.count == 4, "\(source): \(result.stderr)")
            #expect(answers.map { $0?["ok"] as? Bool } == [false, false, false, false], "no household: every command is answered")
            #expect(((answers[1]?["error"] as? [String: Any])?["message"] as? String) == "line 2 is \(long.utf8.count) bytes; a command is at most 1048576 bytes, so it was skipped")
            #expect(((answers[3]?["error"] as? [String: Any])?["code"] as? String) == "line_too_long")
            #expect(result.status == 1)
        }
        let shared = try tool.run(["apply", "--json"], stdin: input)
        #expect(shared.stdout.split(separator: "\n").count == 4)
        #expect(try JournalReader.readAll(path: tool.path("shop.ndjson")).compactMap { if case let .listCreated(_, name, _) = $0.event { name } else { nil } }
                .suffix(2) == ["Before", "After"])
    }

    @Test func aRunThatWritesNothingToAMissingJournalLeavesNoFile() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let files = { try FileManager.default.contentsOfDirectory(atPath: tool.folder.path).filter { $0.hasPrefix("missing") } }
        let rejected = try tool.run(["apply", "--journal", "missing.ndjson"], stdin: #"{"type":"CreateList","data":{"name":"X"}}"# + "\n")
        #expect(rejected.status == 1)
        let garbage = try tool.run(["apply", "--journal", "missing.ndjson"], stdin: "garbage\n")
        #expect(garbage.status == 1)
        #expect(try files() == [])
        // The folder missing: the error names the journal, not its lock file.
        let folder = try tool.run(["apply", "--journal", "/nonexistent/x.ndjson"], stdin: #"{"type":"CreateHousehold","data":{"name":"H","currency":"EUR","timeZone":"UTC"}}"# + "\n")
        #expect(folder.status == 3)
        #expect(folder.stderr == "shop-replay apply: io_error: cannot open the journal /nonexistent/x.ndjson: the folder /nonexistent does not exist\n")
    }
}

extension JournalReader {
    /// The audit head of a journal's bytes: its last line's seq and SHA-256.
    static func head(of bytes: [UInt8]) throws -> JournalHead {
        let lines = bytes.split(separator: 0x0A)
        let last = Array(lines.last!)
        let seq = try #require((try JSONSerialization.jsonObject(with: Data(last)) as? [String: Any])?["seq"] as? Int)
        return JournalHead(seq: seq, hash: SHA256.hash(last))
    }
}

@Suite struct SmallThingsTests {
    @Test func aPurchaseIsRevertedByItsItemOrTheFirstDigitsOfItsIdAndTheAnswerSaysWhich() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        // Milk bought twice: the revert by item takes the latest.
        let buy = #"{"type":"PurchaseItem","data":{"purchase":"AAAA1111-0000-0000-0000-000000000001","item":"Milk","list":"Weekly"}}"# + "\n"
            + #"{"type":"PurchaseItem","data":{"purchase":"AAAA2222-0000-0000-0000-000000000002","item":"Milk","quantity":5}}"# + "\n"
        #expect(try tool.run(["apply"], stdin: buy).status == 0)
        let byItem = try tool.run(["apply", "--json"], stdin: #"{"type":"RevertPurchase","data":{"item":"milk"}}"# + "\n")
        #expect(byItem.status == 0)
        #expect(try byItem.object()["reverted"] as? String == "AAAA2222-0000-0000-0000-000000000002")
        let byDigits = try tool.run(["apply"], stdin: #"{"type":"RevertPurchase","data":{"purchase":"aaaa1111"}}"# + "\n")
        #expect(byDigits.status == 0)
        #expect(byDigits.stdout.contains("reverted purchase AAAA1111-0000-0000-0000-000000000001 (Milk)"))
        // Every rejection, with nothing written.
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        for (data, code, message) in [
            (#"{"item":"Milk"}"#, "unknown_purchase", #"item "Milk" has no purchase that is not reverted"#),
            (#"{"item":"Cheese"}"#, "unknown_item", #"there is no item named "Cheese""#),
            (#"{"purchase":"CCCC"}"#, "unknown_purchase", "no purchase id starts with CCCC"),
            (#"{"purchase":"AAAA"}"#, "unknown_purchase", "2 purchase ids start with AAAA; give more of the id"),
            (#"{"purchase":"xyz"}"#, "unknown_purchase", #"purchase "xyz" is neither an id nor its first 4 or more hex digits"#),
        ] {
            let result = try tool.run(["apply", "--json"], stdin: #"{"type":"RevertPurchase","data":\#(data)}"# + "\n")
            #expect(result.status == 1)
            let error = try result.object()["error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(data)")
            #expect((error?["message"] as? String)?.hasSuffix(message) == true, "\(data): \(String(describing: error?["message"]))")
        }
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before)
    }

    @Test func textAuditAndHistoryShowPurchaseIdsThatResolve() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let audit = try tool.run(["audit"]).stdout
        #expect(audit.split(separator: "\n")[1].hasPrefix("seq  purchase  when"))
        #expect(audit.contains(" 00000000  "))
        let history = try tool.run(["history", "--item", "Bread"]).stdout
        #expect(history.contains("purchase 00000000: Bread ×1 at 2.50"))
        // The short form is taken back by RevertPurchase.
        let revert = try tool.run(["apply"], stdin: #"{"type":"RevertPurchase","data":{"purchase":"00000000"}}"# + "\n")
        #expect(revert.status == 0)
        #expect(revert.stdout.contains("reverted purchase 00000000-0000-0000-0000-000000000020 (Bread)"))
        #expect(try tool.run(["history", "--item", "Bread"]).stdout.contains("purchase 00000000 of Bread (seq 9)"))
    }

    @Test func asOfPastTheEndIsSaidAndAnEmptyRangeIsAUsageError() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let past = try tool.run(["view", "lists", "--as-of", "999", "--json"])
        #expect(past.status == 0)
        #expect(past.stderr == "shop-replay warning: --as-of 999 is past the journal's end: it holds 9 events, so this is as of seq 9, the last\n")
        #expect(try tool.run(["view", "lists", "--as-of", "9"]).stderr.isEmpty)
        let range = try tool.run(["audit", "--from", "2026-11-26", "--to", "2026-11-01"])
        #expect(range.status == 2)
        #expect(range.stderr.hasPrefix("shop-replay audit: --from 2026-11-26 00:00 is not before --to's end 2026-11-02 00:00: no purchase could be in that range"))
        #expect(try tool.run(["audit", "--from", "2026-11-01", "--to", "2026-11-01"]).status == 0, "one whole day is a range")
    }

    @Test func aDeletedListSaysSoAndABoughtEntryShowsWhatWasBought() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        // Milk: 2 on the list, 5 bought.
        #expect(try tool.run(["apply"], stdin: #"{"type":"PurchaseItem","data":{"item":"Milk","list":"Weekly","quantity":5}}"# + "\n").status == 0)
        let detail = try tool.run(["view", "list-detail", "--list", "Weekly"]).stdout
        #expect(detail.contains("✓  Milk   ×5 (of 2)"))
        #expect(detail.contains("✓  Bread         ×1"))
        let json = try tool.run(["view", "list-detail", "--list", "Weekly", "--json"]).object()
        #expect((json["entries"] as? [[String: Any]])?.map { $0["quantity"] as? Int } == [1, 2], "the JSON keeps the entries' quantities")
        #expect(!detail.contains("deleted"))
        #expect(try tool.run(["apply"], stdin: #"{"type":"DeleteList","data":{"list":"Weekly"}}"# + "\n").status == 0)
        for view in ["list-detail", "shopping-list-by-location", "shopping-list-by-name"] {
            let text = try tool.run(["view", view, "--list", "00000000-0000-0000-0000-000000000010"]).stdout.split(separator: "\n")
            #expect(text[1] == "(deleted: restorable with RestoreList; it takes no other command)", "\(view)")
        }
    }
}

/// What an app writes: the command constructors take the defaults the rules have.
@Suite struct CommandDefaultsTests {
    @Test func constructorsLeaveOutWhatTheRulesFillIn() {
        let milk = ItemID(), weekly = ListID()
        if case let .purchaseItem(_, item, list, quantity, unitPrice, location, purchasedAt, _) = Command.purchaseItem(item: milk, list: weekly) {
            #expect(item == milk && list == weekly && quantity == nil && unitPrice == nil && location == nil && purchasedAt == nil)
        } else { Issue.record("not a purchaseItem") }
        if case let .createItem(_, name, location, details) = Command.createItem(name: "Milk") {
            #expect(name == "Milk" && location == nil && details == .none)
        } else { Issue.record("not a createItem") }
        if case let .addItemToList(list, item, quantity) = Command.addItemToList(list: weekly, item: milk) {
            #expect(list == weekly && item == milk && quantity == nil)
        } else { Issue.record("not an addItemToList") }
        // Each constructor left without an id makes a new one.
        if case let .purchaseItem(first, _, _, _, _, _, _, _) = Command.purchaseItem(item: milk),
           case let .purchaseItem(second, _, _, _, _, _, _, _) = Command.purchaseItem(item: milk) {
            #expect(first != second)
        } else { Issue.record("not purchases") }
    }
}

@Suite struct SL17ImportReportTests {
    @Test func anArchiveWithTwoMilksImportsBothAndSaysWhatItRenamed() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let archive = #"""
        [{"id":"8D83AF5B-4281-4AD9-8061-09E597156CC4","name":"Dairy","visitationOrder":18,"red":0,"green":0.1,"blue":0.9,"opacity":0.65,
          "items":[{"id":"B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7","name":"Milk","onList":true,"isAvailable":true,"quantity":2},
                   {"id":"C8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7","name":"milk ","onList":false,"isAvailable":true,"quantity":3}]}]
        """#
        Scratch.write(Array(archive.utf8), to: tool.path("a.json"))
        let text = try tool.run(["import-sl17", "a.json", "--time-zone", "UTC"])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.last == #"renamed item C8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7: "milk " → "milk (2)" ("Milk" (B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7) has that name, ignoring case)"#)
        let json = try tool.run(["import-sl17", "a.json", "--json", "--journal", "again.ndjson", "--time-zone", "UTC"]).object()
        let changes = try #require(json["changes"] as? [[String: String]])
        #expect(changes == [["kind": "renamed", "what": "item", "id": "C8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7", "from": "\"milk \"",
                             "to": "\"milk (2)\"", "reason": "\"Milk\" (B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7) has that name, ignoring case"]])
        // Exported, each keeps its own id and quantity; imported again, nothing is appended.
        #expect(try tool.run(["export-sl17", "back.json"]).status == 0)
        let back = try SL17Archive.parse(Scratch.bytes(tool.path("back.json")))
        #expect(back.locations.first?.items.map(\.quantity) == [2, 3])
        #expect(back.locations.first?.visitationOrder == 18)
        #expect(try tool.run(["import-sl17", "back.json"]).stdout.hasPrefix("nothing to import"))
    }
}
