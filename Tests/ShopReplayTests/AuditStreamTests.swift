import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// `audit --json` and `view audit --json` are written row by row as the
/// journal streams by; every byte is what the whole view held in memory gives.
@Suite struct AuditStreamTests {
    /// The audit of views folded with every record, as `Output.view` writes it.
    static func expected(_ journal: String, filter: AuditView.Filter = AuditView.Filter(), pending: [RecordedEvent] = [],
                         pendingCount: Int? = nil) throws -> String {
        var (views, _) = try ViewEngine.views(journal: journal, useSnapshot: false)
        for recorded in pending { views.apply(recorded) }
        var json = AuditView(views, filter: filter).json
        if let pendingCount, case let .object(pairs) = json { json = .object(pairs + [("pending", .int(pendingCount))]) }
        return json.text(pretty: true) + "\n"
    }

    @Test("the demo's audit, whole and filtered, byte for byte; the text table counts the same rows")
    func demo() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let journal = tool.path("shop-demo.ndjson")
        let (views, _) = try ViewEngine.views(journal: journal, useSnapshot: false)
        let ben = AuditView.Filter(actor: "ben")
        let august = AuditView.Filter(from: views.calendar.start(ofDay: 2026, 8, 1)!, to: views.calendar.start(ofDay: 2026, 9, 1)!)
        for (arguments, filter) in [(["audit"], AuditView.Filter()), (["view", "audit"], AuditView.Filter()), (["audit", "--actor", "ben"], ben),
                                    (["audit", "--from", "2026-08-01", "--to", "2026-08-31"], august)] {
            let json = try tool.run(arguments + ["--json", "--journal", journal])
            #expect(json.status == 0)
            #expect(json.stdout == (try Self.expected(journal, filter: filter)), "\(arguments)")
            let text = try tool.run(arguments + ["--journal", journal])
            let rows = AuditView(views, filter: filter).purchases.count
            #expect(text.stdout.contains("Audit: \(rows) purchase\(rows == 1 ? "" : "s")"), "\(arguments)")
            #expect(text.stdout.split(separator: "\n").count == rows + 2, "a header, the column names and a line a row")
        }
    }

    @Test("on a sync replica: the outbox's purchases after the hub's, and pending")
    func replica() throws {
        let world = SyncWorld()
        _ = try world.makeHub(items: ["Milk", "Bread"], onList: ["Milk", "Bread"], members: [("ana", .owner)])
        #expect(try world.clone("phone", actor: "ana").status == 0)
        _ = try world.apply("phone", actor: "ana", [#"{"type":"PurchaseItem","data":{"item":"Milk","list":"Weekly"}}"#,
                                                    #"{"type":"PurchaseItem","data":{"item":"Bread","list":"Weekly","quantity":2}}"#])
        let replica = try Replica(path: world.path("phone"))
        #expect(replica.pendingEvents.count >= 2)
        let audit = try world.tool.run(["audit", "--json", "--journal", world.path("phone")])
        #expect(audit.status == 0)
        // The outbox's events get fresh event ids each time a replica is read: all else byte for byte.
        func withoutEventIDs(_ text: String) -> [Substring] { text.split(separator: "\n").filter { !$0.hasPrefix(#"      "event": "#) } }
        let expected = try Self.expected(world.path("phone"), pending: replica.pendingEvents, pendingCount: replica.pending.count)
        #expect(withoutEventIDs(audit.stdout) == withoutEventIDs(expected))
        #expect(audit.stdout.utf8.count == expected.utf8.count)
        let purchases = try audit.object()["purchases"] as? [[String: Any]]
        #expect(purchases?.map { $0["itemName"] as? String } == ["Milk", "Bread"])
    }
}
