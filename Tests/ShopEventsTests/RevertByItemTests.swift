import Foundation
import Testing
import ShopTestSupport
@testable import ShopEvents

/// `revert` by item reads the ledger alone (which keeps no `seq`): the
/// item's latest purchase not reverted, by the time it was bought, and of
/// equal times the later in the journal.
@Suite struct RevertByItemTests {
    @Test("the latest by time, of equal times the later in the journal; each revert gives the next; none left is unknown_purchase")
    func latestByTimeThenJournalOrder() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.open()
        defer { journal.close() }
        let milk = ItemID(), bread = ItemID()
        func daysAgo(_ days: Int64) -> Timestamp { Timestamp(millisecondsSince1970: TestClock.start.millisecondsSince1970 - days * 86_400_000) }
        try journal.execute(CommandEnvelope(.createHousehold(name: "Home", currency: "EUR", timeZone: "UTC")))
        try journal.execute(CommandEnvelope(.createItem(item: milk, name: "Milk", location: .unknown)))
        try journal.execute(CommandEnvelope(.createItem(item: bread, name: "Bread", location: .unknown)))
        let a = PurchaseID(), b = PurchaseID(), c = PurchaseID(), d = PurchaseID(), e = PurchaseID()
        for (purchase, item, days) in [(a, milk, 1), (b, milk, 3), (e, bread, 0), (c, milk, 2), (d, milk, 1)] as [(PurchaseID, ItemID, Int64)] {
            try journal.execute(CommandEnvelope(.purchaseItem(purchase: purchase, item: item, purchasedAt: daysAgo(days))))
        }
        var reverted: [PurchaseID] = []
        let line = Array(#"{"type":"RevertPurchase","data":{"item":"milk"}}"#.utf8)
        while true {
            let resolved: [UInt8]
            do { resolved = try CommandCatalog.resolvingNames(in: line, state: journal.state) } catch {
                #expect(error.reason == .unknownPurchase)
                break
            }
            let data = try #require((try JSONSerialization.jsonObject(with: Data(resolved)) as? [String: Any])?["data"] as? [String: Any])
            let purchase = try #require((data["purchase"] as? String).flatMap(PurchaseID.init))
            reverted.append(purchase)
            try journal.execute(CommandEnvelope(.revertPurchase(purchase: purchase)))
        }
        #expect(reverted == [d, a, c, b])
        #expect(journal.state.purchases[e]?.isReverted == false)
    }
}
