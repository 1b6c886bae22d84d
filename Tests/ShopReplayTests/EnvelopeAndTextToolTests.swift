import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// The envelope and text rules of docs/COMMANDS.md through `shop-replay apply`, a process of its
/// own: whole answer lines, and the journal byte for byte unchanged by a refusal.
@Suite struct EnvelopeAndTextToolTests {
    static let journal = "shop.ndjson"
    static let milk = "00000000-0000-0000-0000-000000000001"

    /// The apply's answer lines, and whether the journal is unchanged.
    static func apply(_ tool: ToolRunner, _ lines: [String], json: Bool = true) throws -> (status: Int32, lines: [String], unchanged: Bool) {
        let before = Scratch.bytes(tool.path(journal))
        let result = try tool.run(["apply"] + (json ? ["--json"] : []), stdin: lines.joined(separator: "\n") + "\n")
        return (result.status, result.stdout.split(separator: "\n").map(String.init), Scratch.bytes(tool.path(journal)) == before)
    }

    /// The last event of the journal.
    static func lastEvent(_ tool: ToolRunner) throws -> Event? { try JournalReader.readAll(path: tool.path(journal)).last?.event }

    /// The time a message names in parentheses, and whether it lies between `from` and `to`.
    static func clock(in line: String, from: Timestamp, to: Timestamp) -> String? {
        guard let open = line.range(of: "clock ("), let close = line[open.upperBound...].firstIndex(of: ")") else { return nil }
        let text = String(line[open.upperBound..<close])
        guard let time = Timestamp(text), time >= from, time <= to else { return nil }
        return text
    }

    @Test func aTimeInTheFutureIsRefusedAndNothingWritten() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let start = Timestamp(Date())
        let answer = try Self.apply(tool, [
            #"{"type":"CreateList","id":"00000000-0000-0000-0000-00000000C101","at":"2099-01-01T00:00:00.000Z","data":{"name":"Later"}}"#,
        ])
        let clock = Self.clock(in: answer.lines.first ?? "", from: start, to: Timestamp(Date()))
        #expect(clock != nil, "the message names this writer's clock: \(answer.lines)")
        #expect(answer.status == 1 && answer.unchanged)
        #expect(answer.lines == [
            #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C101","error":{"code":"in_future","message":"at 2099-01-01T00:00:00.000Z is more than 5 minutes after this writer's clock (\#(clock ?? "?")): check the device's date and time"}}"#,
        ])
        // A purchase more than a day after the command's at (the clock's, here).
        let purchase = try Self.apply(tool, [
            #"{"type":"PurchaseItem","id":"00000000-0000-0000-0000-00000000C102","data":{"item":"\#(Self.milk)","purchasedAt":"2099-01-01T00:00:00.000Z"}}"#,
        ])
        #expect(purchase.status == 1 && purchase.unchanged)
        let line = purchase.lines.first ?? ""
        guard let open = line.range(of: "the command's at ("), let close = line[open.upperBound...].firstIndex(of: ")") else {
            Issue.record("no at in \(line)")
            return
        }
        let at = String(line[open.upperBound..<close])
        #expect(Timestamp(at).map { $0 >= start && $0 <= Timestamp(Date()) } == true)
        #expect(purchase.lines == [
            #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C102","error":{"code":"in_future","message":"purchasedAt 2099-01-01T00:00:00.000Z is more than 24 hours after the command's at (\#(at)): a purchase is recorded when it is made or later"}}"#,
        ])
        // Times that are not ahead are accepted as before.
        let now = try Self.apply(tool, [#"{"type":"CreateList","data":{"name":"Now"}}"#])
        #expect(now.status == 0 && !now.unchanged)
    }

    @Test func aCommandIDReusedForAnotherCommandIsRefused() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let buy = #"{"type":"PurchaseItem","id":"00000000-0000-0000-0000-00000000C201","data":{"purchase":"00000000-0000-0000-0000-000000000021","item":"\#(Self.milk)","list":"Weekly"}}"#
        let first = try Self.apply(tool, [buy])
        #expect(first.lines == [#"{"ok":true,"command":"00000000-0000-0000-0000-00000000C201","seqs":[10],"created":{"purchase":"00000000-0000-0000-0000-000000000021"}}"#])
        let again = try Self.apply(tool, [
            #"{"type":"CreateList","id":"00000000-0000-0000-0000-00000000C201","data":{"name":"Party"}}"#,
            buy,
        ])
        #expect(again.status == 1 && again.unchanged)
        #expect(again.lines == [
            #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C201","error":{"code":"id_reused","message":"command id 00000000-0000-0000-0000-00000000C201 was used for a PurchaseItem already; this CreateList needs an id of its own (only a retry of that PurchaseItem may repeat it)"}}"#,
            #"{"ok":true,"command":"00000000-0000-0000-0000-00000000C201","seqs":[10],"created":{"purchase":"00000000-0000-0000-0000-000000000021"},"retry":true}"#,
        ])
    }

    /// On a device, a command id is checked against the outbox and the replica alike.
    @Test func aReplicaRefusesAnIDReused() throws {
        let world = SyncWorld()
        _ = try world.makeHub(items: ["Milk"], onList: [], members: [])
        #expect(try world.clone("a", actor: "ana").status == 0)
        let create = #"{"type":"CreateList","id":"00000000-0000-0000-0000-00000000C301","data":{"list":"00000000-0000-0000-0000-000000000031","name":"Party"}}"#
        let rename = #"{"type":"RenameList","id":"00000000-0000-0000-0000-00000000C301","data":{"list":"00000000-0000-0000-0000-000000000031","name":"Feast"}}"#
        let refusal = #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C301","error":{"code":"id_reused","message":"command id 00000000-0000-0000-0000-00000000C301 was used for a CreateList already; this RenameList needs an id of its own (only a retry of that CreateList may repeat it)"}}"#
        let outbox = world.path("a") + ".outbox"
        let pending = try world.tool.run(["apply", "--journal", world.path("a"), "--actor", "ana", "--json"], stdin: create + "\n")
        #expect(pending.status == 0)
        let before = Scratch.bytes(outbox)
        let inOutbox = try world.tool.run(["apply", "--journal", world.path("a"), "--actor", "ana", "--json"], stdin: rename + "\n")
        #expect(inOutbox.stdout == refusal + "\n")
        #expect(Scratch.bytes(outbox) == before)
        #expect(try world.sync("a", actor: "ana").status == 0)
        let replica = Scratch.bytes(world.path("a"))
        let inReplica = try world.tool.run(["apply", "--journal", world.path("a"), "--actor", "ana", "--json"], stdin: rename + "\n" + create + "\n")
        let lines = inReplica.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == refusal)
        #expect(lines.count == 2 && lines[1].contains(#""retry":true"#), "\(lines)")
        #expect(Scratch.bytes(world.path("a")) == replica)
        // A device refuses a time ahead of its own clock too, into neither file.
        let outboxBefore = Scratch.bytes(outbox)
        let ahead = try world.tool.run(["apply", "--journal", world.path("a"), "--actor", "ana", "--json"],
                                       stdin: #"{"type":"CreateList","id":"00000000-0000-0000-0000-00000000C302","at":"2099-01-01T00:00:00.000Z","data":{"name":"Later"}}"# + "\n")
        #expect(ahead.stdout.hasPrefix(#"{"ok":false,"command":"00000000-0000-0000-0000-00000000C302","error":{"code":"in_future","message":"at 2099-01-01T00:00:00.000Z is more than 5 minutes after this writer's clock ("#), "\(ahead.stdout)")
        #expect(Scratch.bytes(outbox) == outboxBefore && Scratch.bytes(world.path("a")) == replica)
    }

    @Test func changeItemDetailsIsAMergePatch() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let set = try Self.apply(tool, [
            #"{"type":"ChangeItemDetails","data":{"item":"\#(Self.milk)","category":"Dairy","unit":"l","barcode":"4006381333931"}}"#,
        ])
        #expect(set.status == 0)
        #expect(try Self.lastEvent(tool) == .itemDetailsChanged(item: ItemID(Self.milk)!, details: ItemDetails(category: "Dairy", unitPrice: 119, unit: "l", barcode: "4006381333931")))
        // The issue's command: only the notes change.
        let notes = try Self.apply(tool, [#"{"type":"ChangeItemDetails","data":{"item":"Milk","notes":"x"}}"#])
        #expect(notes.status == 0)
        #expect(try Self.lastEvent(tool) == .itemDetailsChanged(item: ItemID(Self.milk)!, details: ItemDetails(category: "Dairy", notes: "x", unitPrice: 119, unit: "l", barcode: "4006381333931")))
        // null clears; an empty unit or barcode is none.
        let cleared = try Self.apply(tool, [#"{"type":"ChangeItemDetails","data":{"item":"Milk","unitPrice":null,"category":null,"unit":"","barcode":" "}}"#])
        #expect(cleared.status == 0)
        #expect(try Self.lastEvent(tool) == .itemDetailsChanged(item: ItemID(Self.milk)!, details: ItemDetails(notes: "x")))
        // A refused patch names its field and value, and writes nothing.
        let refused = try Self.apply(tool, [#"{"type":"ChangeItemDetails","id":"00000000-0000-0000-0000-00000000C401","data":{"item":"Milk","unitPrice":-5}}"#])
        #expect(refused.unchanged)
        #expect(refused.lines == [#"{"ok":false,"command":"00000000-0000-0000-0000-00000000C401","error":{"code":"invalid_price","message":"unitPrice -5 is out of range 0…100000000 (minor units)"}}"#])
        let help = try tool.run(["apply", "--help"]).stdout
        #expect(help.contains("ChangeItemDetails is a patch"), "\(help)")
    }

    @Test func controlCharactersAreRefusedAndNeverPrintedRaw() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let json = try Self.apply(tool, [
            #"{"type":"CreateItem","id":"00000000-0000-0000-0000-00000000C501","data":{"name":"csi\u009b31mred"}}"#,
            #"{"type":"CreateList","id":"00000000-0000-0000-0000-00000000C502","data":{"name":"del\u007f"}}"#,
            #"{"type":"CreateItem","id":"00000000-0000-0000-0000-00000000C503","data":{"name":"Flour","unit":"k\u0085g"}}"#,
            #"{"type":"ChangeItemDetails","id":"00000000-0000-0000-0000-00000000C504","data":{"item":"Milk","notes":"\u001b[31mred"}}"#,
        ])
        #expect(json.status == 1 && json.unchanged)
        #expect(json.lines == [
            #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C501","error":{"code":"invalid_name","message":"name \"csi\\u{9B}31mred\" holds the control character U+009B; names, units, actors and devices may hold none (U+0000–U+001F, U+007F–U+009F)"}}"#,
            #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C502","error":{"code":"invalid_name","message":"name \"del\\u{7F}\" holds the control character U+007F; names, units, actors and devices may hold none (U+0000–U+001F, U+007F–U+009F)"}}"#,
            #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C503","error":{"code":"invalid_name","message":"unit \"k\\u{85}g\" holds the control character U+0085; names, units, actors and devices may hold none (U+0000–U+001F, U+007F–U+009F)"}}"#,
            #"{"ok":false,"command":"00000000-0000-0000-0000-00000000C504","error":{"code":"invalid_text","message":"notes \"\\u{1B}[31mred\" holds the control character U+001B; notes may hold line feeds and tabs but no other control character (U+0000–U+001F, U+007F–U+009F)"}}"#,
        ])
        // As text on a terminal: the refusal shows the character escaped, never raw.
        let text = try Self.apply(tool, [#"{"type":"CreateItem","id":"00000000-0000-0000-0000-00000000C501","data":{"name":"csi\u009b31mred"}}"#], json: false)
        #expect(text.lines == [#"rejected  00000000-0000-0000-0000-00000000C501  invalid_name: name "csi\u{9B}31mred" holds the control character U+009B; names, units, actors and devices may hold none (U+0000–U+001F, U+007F–U+009F)"#])
        // Notes may have several lines and tabs; names may hold joiners (emoji).
        let accepted = try Self.apply(tool, [
            #"{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-000000000005","name":"Family 👨‍👩‍👧 pack","notes":"2 l\n\tthe blue one"}}"#,
        ])
        #expect(accepted.status == 0)
        #expect(try Self.lastEvent(tool) == .itemCreated(item: ItemID("00000000-0000-0000-0000-000000000005")!, name: "Family 👨‍👩‍👧 pack", location: .unknown,
                                                          details: ItemDetails(notes: "2 l\n\tthe blue one")))
    }
}
