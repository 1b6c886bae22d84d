import Foundation
import Testing
import ShopEvents
import ShopTestSupport
@testable import ShopProjections

/// The streamed audit gives exactly the rows of the audit held in memory.
@Suite struct AuditQueryTests {
    /// Views folded with every record up to `seq`.
    static func recordsViews(_ events: [RecordedEvent], through seq: Int) -> HouseholdViews {
        var views = HouseholdViews()
        for recorded in events where recorded.seq <= seq { views.apply(recorded) }
        return views
    }

    /// Filters that each keep some purchases of `events` and drop others.
    static func filters(_ events: [RecordedEvent]) -> [AuditView.Filter] {
        let purchases = events.filter { if case .itemPurchased = $0.event { true } else { false } }
        guard let middle = purchases.dropFirst(purchases.count / 2).first,
              case let .itemPurchased(_, item, list, _, _, _, _, _) = middle.event else { return [AuditView.Filter()] }
        return [AuditView.Filter(), AuditView.Filter(actor: middle.actor), AuditView.Filter(item: item), AuditView.Filter(list: list),
                AuditView.Filter(from: middle.at), AuditView.Filter(to: middle.at),
                AuditView.Filter(actor: "ben", from: purchases.first!.at, to: middle.at)]
    }

    @Test("the same rows as AuditView over the records, at prefixes of random histories, with filters", arguments: [51, 52] as [UInt64])
    func sameRows(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        #expect(events.contains { if case .purchaseReverted = $0.event { true } else { false } }, "reverts are marked too")
        for seq in [0, 1, events.count / 3, events.count / 2, events.count - 1, events.count] {
            let full = Self.recordsViews(events, through: seq)
            // The present keeps no purchase ledger: the query reads the reverts from the journal.
            let (state, _) = try StateViews.read(journal: journal.path, asOf: .seq(seq), useSnapshot: false)
            let (present, _) = try PresentViews.read(journal: journal.path, asOf: .seq(seq), useSnapshot: false)
            for filter in Self.filters(events) {
                #expect(try AuditQuery(journal: journal.path, views: state, filter: filter).view() == AuditView(full, filter: filter),
                        "seq \(seq), the whole state, filter \(filter)")
                #expect(try AuditQuery(journal: journal.path, views: present, filter: filter).view() == AuditView(full, filter: filter),
                        "seq \(seq), the present, filter \(filter)")
            }
        }
    }

    @Test("pending events after the journal's (a replica's outbox) are audited after it, and may revert its purchases")
    func pending() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 53, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        let reverts = events.filter { if case .purchaseReverted = $0.event { true } else { false } }
        #expect(!reverts.isEmpty)
        // The journal is read to just before the last revert; the rest come as pending events.
        let through = reverts.last!.seq - 1
        func check(_ views: some StateFold) throws {
            var withPending = views
            let pending = Array(events[through...])
            for recorded in pending { withPending.apply(recorded) }
            for filter in Self.filters(events) {
                let query = AuditQuery(journal: journal.path, views: withPending, through: through, pending: pending, filter: filter)
                #expect(try query.view() == AuditView(Self.recordsViews(events, through: events.count), filter: filter), "\(type(of: views))")
            }
        }
        try check(StateViews.read(journal: journal.path, asOf: .seq(through), useSnapshot: false).0)
        try check(PresentViews.read(journal: journal.path, asOf: .seq(through), useSnapshot: false).0)
    }

    @Test("a journal of more than 4 MiB is read on two threads, names as they were when bought; events written since are passed over")
    func long() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 54, commands: 300)
        let writer = try Journal.open(path: journal.path)
        let list = ListID()
        try writer.execute(.createList(list: list, name: "Bulk", priority: nil))
        var n = 0, last = ItemID()
        while (try FileManager.default.attributesOfItem(atPath: journal.path)[.size] as! Int) < 5 << 20 {
            var batch: [CommandEnvelope] = []
            for _ in 0..<100 {
                let item = ItemID()
                n += 1
                last = item
                batch += [.createItem(item: item, name: "bulk \(n)", location: nil, details: ItemDetails(unitPrice: n % 500)),
                          .purchaseItem(purchase: PurchaseID(), item: item, list: nil, quantity: Quantity(n % 3 + 1), unitPrice: nil, location: nil, purchasedAt: nil),
                          .renameItem(item: item, name: "bulk \(n) ✓")].map { CommandEnvelope($0, actor: n % 2 == 0 ? "ana" : "ben") }
            }
            _ = try writer.execute(batch: batch)
        }
        let (views, _) = try StateViews.read(journal: journal.path, useSnapshot: false)
        let query = AuditQuery(journal: journal.path, views: views, filter: AuditView.Filter(actor: "ben"))
        // Written after the views were folded: not in the audit.
        _ = try writer.execute(CommandEnvelope(.purchaseItem(purchase: PurchaseID(), item: last, list: nil, quantity: 1, unitPrice: nil,
                                                             location: nil, purchasedAt: nil), actor: "ben"))
        writer.close()
        let events = try JournalReader.readAll(path: journal.path)
        let expected = AuditView(Self.recordsViews(events, through: views.asOf), filter: AuditView.Filter(actor: "ben"))
        let streamed = try query.view()
        #expect(streamed == expected)
        #expect(streamed.purchases.filter { $0.itemName.hasPrefix("bulk ") }.allSatisfy { !$0.itemName.hasSuffix("✓") })
        #expect(streamed.purchases.filter { $0.itemName.hasPrefix("bulk ") }.count == n / 2)
    }

    @Test("a journal that no longer reaches the views' last event: corrupt_line; a missing one: not_found")
    func shorter() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 55, commands: 100)
        let (views, _) = try StateViews.read(journal: journal.path, useSnapshot: false)
        let query = AuditQuery(journal: journal.path, views: views, through: views.asOf + 3)
        do { try query.forEach { _ in }; Issue.record("the audit ended early without a word") } catch { #expect(error.reason == .corruptLine) }
        let missing = AuditQuery(journal: journal.folder.appendingPathComponent("none.ndjson").path, views: views)
        do { try missing.forEach { _ in }; Issue.record("a missing journal was read") } catch { #expect(error.reason == .notFound) }
    }
}
