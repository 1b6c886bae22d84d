import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// `apply`'s names, retries and refusals,
/// deleted lists by name, no actor, and nothing left behind by a refused
/// apply; each run as a user would, the built tool as a separate process.
@Suite struct CommandsByNameToolTests {
    static func c(_ n: Int) -> String { String(format: "00000000-0000-0000-0000-%012X", n) }

    /// A household whose every command carries its id and time, so that every answer and view is known in advance.
    static let household = """
    {"type":"CreateHousehold","id":"\(c(0xC01))","at":"2026-03-01T10:00:00.000Z","data":{"household":"\(c(0xAA))","name":"Home","currency":"EUR","timeZone":"UTC"}}
    {"type":"CreateList","id":"\(c(0xC02))","at":"2026-03-01T10:01:00.000Z","data":{"list":"\(c(0x10))","name":"Weekly"}}
    {"type":"CreateItem","id":"\(c(0xC03))","at":"2026-03-01T10:02:00.000Z","data":{"item":"\(c(0x01))","name":"Potatoes"}}
    {"type":"AddItemToList","id":"\(c(0xC04))","at":"2026-03-01T10:03:00.000Z","data":{"list":"Weekly","item":"Potatoes"}}

    """

    static func withHousehold() throws -> ToolRunner {
        let tool = ToolRunner()
        let result = try tool.run(["apply", "--actor", "ana"], stdin: household)
        precondition(result.status == 0, "apply failed: \(result.stdout) \(result.stderr)")
        return tool
    }

    static func files(_ tool: ToolRunner) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: tool.folder.path).sorted()
    }

    /// Item 5: a quantity by name is checked as written (`1e2`, `1.5000`, `1.2345`, `2.0e0` refused, as by id), the byte offset in the line as typed.
    @Test func aQuantityByNameIsCheckedAsWritten() throws {
        let tool = try Self.withHousehold()
        defer { tool.remove() }
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let byName = #"{"type":"ChangeQuantity","data":{"list":"Weekly","item":"Potatoes","quantity":"#
        let byBoth = #"{"type":"ChangeQuantity","id":"\#(Self.c(0xC05))","data":{"list":"weekly","item":"\#(Self.c(0x01))","quantity":"#
        let byID = #"{"type":"ChangeQuantity","data":{"list":"\#(Self.c(0x10))","item":"\#(Self.c(0x01))","quantity":"#
        let input = [byName + "1e2}}", byBoth + "1.5000}}", byName + "1.2345}}", byName + "2.0e0}}", byID + "1e2}}"].joined(separator: "\n") + "\n"
        let result = try tool.run(["apply", "--json"], stdin: input)
        #expect(result.status == 1)
        let exponent = "a quantity is a plain number (no exponent)", digits = "a quantity has at most three fraction digits"
        func refused(_ line: Int, _ command: String?, _ detail: String, _ offset: Int) -> String {
            #"{"ok":false,"command":\#(command.map { "\"\($0)\"" } ?? "null"),"error":{"code":"invalid_quantity","message":"line \#(line): \#(detail) (at byte \#(offset) of the line)"}}"#
        }
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            refused(1, nil, exponent, byName.utf8.count),
            refused(2, Self.c(0xC05), digits, byBoth.utf8.count),
            refused(3, nil, digits, byName.utf8.count),
            refused(4, nil, exponent, byName.utf8.count),
            refused(5, nil, exponent, byID.utf8.count),
        ])
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before, "refused: nothing written")
        // A plain quantity by name is accepted, as written.
        let ok = try tool.run(["apply", "--json"], stdin: #"{"type":"ChangeQuantity","id":"\#(Self.c(0xC06))","at":"2026-03-01T10:04:00.000Z","data":{"list":"Weekly","item":"Potatoes","quantity":1.5}}"# + "\n")
        #expect(ok.stdout == #"{"ok":true,"command":"\#(Self.c(0xC06))","seqs":[5],"created":{}}"# + "\n")
        #expect(try JournalReader.readAll(path: tool.path("shop.ndjson")).last?.event
                == .listEntryQuantityChanged(list: ListID(Self.c(0x10))!, item: ItemID(Self.c(0x01))!, quantity: Quantity(thousandths: 1500)))
    }

    /// Item 6: the retry of a command by name answers its first result though the name names nothing now;
    /// every refusal of a line with an id names it, also of a line that is no command.
    @Test func aRetryByNameAnswersItsFirstResultAndRefusalsNameTheID() throws {
        let tool = try Self.withHousehold()
        defer { tool.remove() }
        let rename = #"{"type":"RenameItem","id":"\#(Self.c(0xD1))","at":"2026-03-01T10:05:00.000Z","data":{"item":"Potatoes","name":"Spuds"}}"# + "\n"
        let first = try tool.run(["apply", "--json"], stdin: rename)
        #expect(first.stdout == #"{"ok":true,"command":"\#(Self.c(0xD1))","seqs":[5],"created":{}}"# + "\n")
        let written = Scratch.bytes(tool.path("shop.ndjson"))
        let again = try tool.run(["apply", "--json"], stdin: rename)
        #expect(again.status == 0)
        #expect(again.stdout == #"{"ok":true,"command":"\#(Self.c(0xD1))","seqs":[5],"created":{},"retry":true}"# + "\n")
        let text = try tool.run(["apply"], stdin: rename)
        #expect(text.stdout == "ok        \(Self.c(0xD1))  seq 5  (already applied)\n")
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == written, "a retry writes nothing")

        let unclosed = #"{"type":"RenameItem","id":"\#(Self.c(0xD3))","data":{"item":"Spuds","#
        let input = [#"{"type":"RenameItem","id":"\#(Self.c(0xD2))","data":{"item":"Potatoes","name":"Roe"}}"#,
                     unclosed,
                     #"{"type":"Nonsense","id":"\#(Self.c(0xD4))","data":{}}"#,
                     #"{"type":"RenameItem","id":"\#(Self.c(0xD5))","data":{"item":"Spuds","name":"Spuds"},"colour":1}"#].joined(separator: "\n") + "\n"
        let refused = try tool.run(["apply", "--json"], stdin: input)
        #expect(refused.status == 1)
        #expect(refused.stdout.split(separator: "\n").map(String.init) == [
            #"{"ok":false,"command":"\#(Self.c(0xD2))","error":{"code":"unknown_item","message":"line 1: there is no live item named \"Potatoes\""}}"#,
            #"{"ok":false,"command":"\#(Self.c(0xD3))","error":{"code":"malformed_json","message":"line 2: expected a string but the text ended (at byte \#(unclosed.utf8.count) of the line)"}}"#,
            #"{"ok":false,"command":"\#(Self.c(0xD4))","error":{"code":"unknown_type","message":"line 3: type \"Nonsense\" is not a command (CreateHousehold, CreateItem, AddItemToList, PurchaseItem, …) (at byte 8 of the line)"}}"#,
            #"{"ok":false,"command":"\#(Self.c(0xD5))","error":{"code":"unknown_field","message":"line 4: a command has no field \"colour\" (it has type, id, actor, at, expectedSeq, correlation, device, data) (at byte 105 of the line)"}}"#,
        ])
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == written)
    }

    /// Item 7: RestoreList and PurgeList name a deleted list by its last name; two share it: `ambiguous_name`
    /// with the ids. `history --list` finds a purged list by id and by name; `view deleted-lists` shows ids.
    @Test func deletedListsByNameHistoryOfAPurgedListAndTheirIds() throws {
        let tool = try Self.withHousehold()
        defer { tool.remove() }
        let commands = [
            #"{"type":"CreateList","id":"\#(Self.c(0xE1))","at":"2026-03-02T09:00:00.000Z","data":{"list":"\#(Self.c(0x31))","name":"Party"}}"#,
            #"{"type":"DeleteList","id":"\#(Self.c(0xE2))","at":"2026-03-02T09:01:00.000Z","data":{"list":"Party"}}"#,
            #"{"type":"CreateList","id":"\#(Self.c(0xE3))","at":"2026-03-02T09:02:00.000Z","data":{"list":"\#(Self.c(0x32))","name":"Party"}}"#,
            // The deleted Party, not the live one.
            #"{"type":"PurgeList","id":"\#(Self.c(0xE4))","at":"2026-03-02T09:03:00.000Z","data":{"list":"party"}}"#,
            #"{"type":"DeleteList","id":"\#(Self.c(0xE5))","at":"2026-03-02T09:04:00.000Z","data":{"list":"Party"}}"#,
            #"{"type":"CreateList","id":"\#(Self.c(0xE6))","at":"2026-03-02T09:05:00.000Z","data":{"list":"\#(Self.c(0x33))","name":"PARTY"}}"#,
            #"{"type":"DeleteList","id":"\#(Self.c(0xE7))","at":"2026-03-02T09:06:00.000Z","data":{"list":"Party"}}"#,
            #"{"type":"RestoreList","id":"\#(Self.c(0xE8))","data":{"list":"Party"}}"#,
            #"{"type":"RestoreList","id":"\#(Self.c(0xE9))","data":{"list":"Weekly"}}"#,
        ].joined(separator: "\n") + "\n"
        let result = try tool.run(["apply", "--json", "--actor", "ana"], stdin: commands)
        #expect(result.status == 1)
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            #"{"ok":true,"command":"\#(Self.c(0xE1))","seqs":[5],"created":{"list":"\#(Self.c(0x31))"}}"#,
            #"{"ok":true,"command":"\#(Self.c(0xE2))","seqs":[6],"created":{}}"#,
            #"{"ok":true,"command":"\#(Self.c(0xE3))","seqs":[7],"created":{"list":"\#(Self.c(0x32))"}}"#,
            #"{"ok":true,"command":"\#(Self.c(0xE4))","seqs":[8],"created":{}}"#,
            #"{"ok":true,"command":"\#(Self.c(0xE5))","seqs":[9],"created":{}}"#,
            #"{"ok":true,"command":"\#(Self.c(0xE6))","seqs":[10],"created":{"list":"\#(Self.c(0x33))"}}"#,
            #"{"ok":true,"command":"\#(Self.c(0xE7))","seqs":[11],"created":{}}"#,
            #"{"ok":false,"command":"\#(Self.c(0xE8))","error":{"code":"ambiguous_name","message":"line 8: 2 deleted lists are named \"Party\": \#(Self.c(0x32)), \#(Self.c(0x33)); give the id of the one meant"}}"#,
            #"{"ok":false,"command":"\#(Self.c(0xE9))","error":{"code":"list_not_deleted","message":"list \#(Self.c(0x10)) (\"Weekly\") is not deleted; only a soft-deleted list can be restored or purged"}}"#,
        ])
        let events = try JournalReader.readAll(path: tool.path("shop.ndjson"))
        #expect(events[7].event == .listPurged(list: ListID(Self.c(0x31))!))

        let deleted = try tool.run(["view", "deleted-lists"])
        #expect(deleted.stdout == """
        Deleted lists (restorable)  (as of seq 11)

        list   id                                    deleted           by   entries
        PARTY  \(Self.c(0x33))  2026-03-02 09:06  ana        0
        Party  \(Self.c(0x32))  2026-03-02 09:04  ana        0

        """)

        // The purged list's history, by its id and by its last name (the deleted and live lists of that name come first).
        let lines = Scratch.bytes(tool.path("shop.ndjson")).split(separator: 0x0A).map { try! JSONSerialization.jsonObject(with: Data($0)) }
        let expected: NSDictionary = ["history": ["kind": "list", "id": Self.c(0x31), "name": "Party"], "events": [lines[4], lines[5], lines[7]]]
        let byID = try tool.run(["history", "--list", Self.c(0x31), "--json"])
        #expect(byID.status == 0, "\(byID.stderr)")
        #expect(try byID.object() as NSDictionary == expected)
        let text = try tool.run(["history", "--list", Self.c(0x31)])
        #expect(text.stdout == """
        History of list Party (\(Self.c(0x31))): 3 events

        seq  at                actor  event
          5  2026-03-02 09:00  ana    ListCreated  Party (normal)
          6  2026-03-02 09:01  ana    ListDeleted  Party
          8  2026-03-02 09:03  ana    ListPurged   Party

        """)
        // By name: the deleted Party (lowest id) first, as before; once those are purged too, the purged one.
        let purgeBoth = [#"{"type":"PurgeList","data":{"list":"\#(Self.c(0x32))"}}"#, #"{"type":"PurgeList","data":{"list":"\#(Self.c(0x33))"}}"#].joined(separator: "\n") + "\n"
        #expect(try tool.run(["apply"], stdin: purgeBoth).status == 0)
        let byName = try tool.run(["history", "--list", "party", "--json"])
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect((try byName.object()["history"] as? NSDictionary) == ["kind": "list", "id": Self.c(0x31), "name": "Party"])
        let unknown = try tool.run(["history", "--list", "Picnic"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "shop-replay history: there is no list named \"Picnic\"; the lists are Weekly\nSee shop-replay history --help\n")
    }

    /// Item 15: with no --actor and no $USER, the commands that name their actor are written, the others refused, one line each.
    @Test func withoutAnyActorOnlyCommandsNamingTheirActorAreWritten() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let input = [
            #"{"type":"CreateHousehold","id":"\#(Self.c(0xF1))","actor":"ana","data":{"household":"\#(Self.c(0xAA))","name":"Home","currency":"EUR","timeZone":"UTC"}}"#,
            #"{"type":"CreateList","id":"\#(Self.c(0xF2))","data":{"list":"\#(Self.c(0x10))","name":"Weekly"}}"#,
            #"{"type":"CreateList","id":"\#(Self.c(0xF3))","actor":"ben","data":{"list":"\#(Self.c(0x11))","name":"Party"}}"#,
            #"{"type":"CreateList","data":{"list":"\#(Self.c(0x12))","name":"Picnic"}}"#,
        ].joined(separator: "\n") + "\n"
        let missing = "the command names no \\\"actor\\\", and there is no --actor and $USER is not set: give \\\"actor\\\" in the command or --actor NAME; nothing was written for it"
        let result = try tool.run(["apply", "--json"], stdin: input, environment: ["USER": ""])
        #expect(result.status == 1)
        #expect(result.stderr == "")
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            #"{"ok":true,"command":"\#(Self.c(0xF1))","seqs":[1],"created":{"household":"\#(Self.c(0xAA))"}}"#,
            #"{"ok":false,"command":"\#(Self.c(0xF2))","error":{"code":"missing_actor","message":"line 2: \#(missing)"}}"#,
            #"{"ok":true,"command":"\#(Self.c(0xF3))","seqs":[2],"created":{"list":"\#(Self.c(0x11))"}}"#,
            #"{"ok":false,"command":null,"error":{"code":"missing_actor","message":"line 4: \#(missing)"}}"#,
        ])
        let events = try JournalReader.readAll(path: tool.path("shop.ndjson"))
        #expect(events.map(\.actor) == ["ana", "ben"])
        #expect(events.map(\.command) == [CommandID(Self.c(0xF1))!, CommandID(Self.c(0xF3))!])
        // A retry of a command without an actor is answered all the same: it is not written again.
        let retry = try tool.run(["apply", "--json"], stdin: #"{"type":"CreateList","id":"\#(Self.c(0xF3))","data":{"list":"\#(Self.c(0x11))","name":"Party"}}"# + "\n",
                                 environment: ["USER": ""])
        #expect(retry.stdout == #"{"ok":true,"command":"\#(Self.c(0xF3))","seqs":[2],"created":{"list":"\#(Self.c(0x11))"},"retry":true}"# + "\n")
    }

    /// Item 16: a refused apply on a folder, a CSV file or an SL17 archive leaves the folder exactly as it was: no lock file.
    @Test func aRefusedApplyLeavesNoLockFile() throws {
        let tool = try Self.withHousehold()
        defer { tool.remove() }
        #expect(try tool.run(["export-sl17", "archive.json"]).status == 0)
        try FileManager.default.createDirectory(atPath: tool.path("folder"), withIntermediateDirectories: false)
        Scratch.write(Array("day,item,price\n2026-03-01,Potatoes,2.49\n".utf8), to: tool.path("prices.csv"))
        let before = try Self.files(tool)
        let command = #"{"type":"CreateList","actor":"ana","data":{"name":"Weekend"}}"# + "\n"
        let damaged = "the journal is damaged or is not a ShopEvents journal: line 1 (byte offset 0): malformed_json: expected '{' but found"
        let then = "the journal was not changed. What next: `shop-replay verify` names the first bad line; restore the journal from a copy (or a device's replica)"
        for (journal, error) in [("folder", "io_error: open \(tool.path("folder")) failed: Is a directory (errno 21)"),
                                 ("prices.csv", "\(damaged) 'd'; \(then)"),
                                 ("archive.json", "\(damaged) '['; \(then)")] {
            let result = try tool.run(["apply", "--journal", journal], stdin: command)
            #expect(result.status == 3)
            #expect(result.stdout == "")
            #expect(result.stderr == "shop-replay apply: \(error)\n")
            #expect(try Self.files(tool) == before, "\(journal): the folder is as it was")
        }
        // A folder given as the file of commands is refused too, not read as no commands.
        let folder = try tool.run(["apply", "folder", "--actor", "ana"])
        #expect(folder.status == 3)
        #expect(folder.stdout == "")
        #expect(folder.stderr == "shop-replay apply: cannot read commands from folder: it is a folder, not a file of commands; nothing was written\n")
        #expect(try Self.files(tool) == before)
    }
}
