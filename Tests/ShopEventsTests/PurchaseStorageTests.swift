import Foundation
import Testing
import ShopTestSupport
@testable import ShopEvents

/// The domain keeps purchases in whatever ``PurchaseStorage`` its fold began
/// with: the plain list (``ShopState/initial``) and the compact table
/// (``ShopState/compact``) give the same state, event for event.
@Suite struct PurchaseStorageTests {
    @Test("random histories folded from .initial (a PurchaseList) and from .compact (a PurchaseTable): equal states, hashes and purchases after every event; the list's snapshot reads back as a table, equal", arguments: [5, 6] as [UInt64])
    func listAndTableFoldAlike(seed: UInt64) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        var generator = RandomCommands(seed: seed)
        let journal = try fixture.open()
        for _ in 0..<400 { _ = try? journal.execute(CommandEnvelope(generator.next(for: journal.state), actor: "ana")) }
        journal.close()
        var plain = ShopState.initial, compact = ShopState.compact
        var purchases = 0
        for recorded in try JournalReader.readAll(path: fixture.path) {
            plain = ShopState.evolve(plain, recorded)
            compact = ShopState.evolve(compact, recorded)
            #expect(plain == compact && plain.hashValue == compact.hashValue)
            if case .itemPurchased = recorded.event { purchases += 1 }
        }
        #expect(purchases > 20, "the history buys things")
        #expect(plain.purchases.storage is PurchaseList && compact.purchases.storage is PurchaseTable)
        #expect(Array(plain.purchases.values) == Array(compact.purchases.values))
        for purchase in compact.purchases.values { #expect(plain.purchases[purchase.id] == purchase) }
        var w = BinaryWriter()
        plain.encode(to: &w)
        var r = BinaryReader(w.bytes)
        let decoded = try ShopState(from: &r)
        #expect(decoded.purchases.storage is PurchaseTable)
        #expect(decoded == plain)
    }

    @Test("the same purchases in a list and a table are equal either way round; a revert in one makes them differ; emptied keeps the kind")
    func equalityAcrossKinds() {
        let bought = (1...300).map { Purchase(id: PurchaseID(), item: ItemID(), list: nil, location: .unknown,
                                              effectiveTime: Timestamp(millisecondsSince1970: Int64($0)), seq: $0) }
        var list = Purchases(in: PurchaseList()), table = Purchases(in: PurchaseTable())
        for purchase in bought { list.insert(purchase); table.insert(purchase) }
        list.insert(bought[0])   // an id known already replaces nothing
        #expect(list == table && table == list && list.hashValue == table.hashValue && list.count == 300)
        table.markReverted(bought[7].id)
        #expect(list != table && table[bought[7].id]?.isReverted == true && list[bought[7].id]?.isReverted == false)
        list.markReverted(bought[7].id)
        #expect(list == table)
        list.removeAll(); table.removeAll()
        #expect(list.storage is PurchaseList && table.storage is PurchaseTable && list.count == 0 && table == list)
    }

    @Test("the journal, a replica and the views fold into the compact table")
    func largeFoldsAreCompact() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.open()
        defer { journal.close() }
        #expect(journal.state.purchases.storage is PurchaseTable)
        #expect(ShopState.initial(keepingPurchasesIn: PurchaseTable()).purchases.storage is PurchaseTable)
    }
}
