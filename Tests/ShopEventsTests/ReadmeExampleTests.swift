import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// The README's embedding example, as written there, so it never rots.
@Suite struct ReadmeExampleTests {
    @Test func theEmbeddingExampleWorks() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path

        let journal = try Journal.open(path: path, options: .init(actor: "ana"))
        defer { journal.close() }

        let home = HouseholdID(), dairy = LocationID(), milk = ItemID(), weekly = ListID()
        try journal.execute(.createHousehold(household: home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        try journal.execute(.createLocation(location: dairy, name: "Dairy"))
        try journal.execute(.createItem(item: milk, name: "Milk", location: dairy, details: ItemDetails(unitPrice: 119)))
        try journal.execute(.createList(list: weekly, name: "Weekly", priority: .high))
        try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 2))
        try journal.execute(.createItem(name: "Bread"))

        var code: String?
        do {
            try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 1))
        } catch let violation as RuleViolation {
            code = violation.code
        }
        #expect(code == "already_on_list")

        try journal.execute(CommandEnvelope(.purchaseItem(item: milk, list: weekly), actor: "ben"))

        #expect(journal.state.lists[weekly]!.entries.map(\.isBought) == [true])
        #expect(journal.head.seq == 7)
        // The defaults are the rules': the entry's quantity, the item's price and place.
        guard case let .itemPurchased(_, item, list, quantity, unitPrice, location, purchasedAt, _)? = try JournalReader.readAll(path: path).last?.event else {
            Issue.record("the last event is not the purchase"); return
        }
        #expect(item == milk && list == weekly && quantity == 2 && unitPrice == 119 && location == dairy && purchasedAt == nil)

        let reader = try JournalReader(path: path)
        var seen: [String] = []
        while let recorded = try reader.next() {
            seen.append("\(recorded.seq) \(recorded.actor) \(recorded.event.typeName)")
        }
        #expect(seen.last == "7 ben ItemPurchased")
    }
}
