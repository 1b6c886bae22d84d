import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// The suggestions view (docs/VIEWS.md, "Suggestions"): its matching, exclusion and order
/// checked by hand; its index kept event by event against the index built
/// afresh, and the view against a model of the rule, over random histories.
@Suite struct SuggestionsViewTests {
    static let start = Timestamp("2026-06-01T09:00:00.000Z")!
    static func day(_ n: Double) -> Timestamp { Timestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(n * 86_400_000)) }

    /// A household written through a journal (one second a command from 1 June), and its views (every purchase's record).
    struct Household {
        let folder = Scratch.directory()
        let journal: Journal
        var path: String { folder.appendingPathComponent("shop.ndjson").path }

        init(from start: Timestamp = SuggestionsViewTests.start) throws {
            journal = try Journal.open(path: folder.appendingPathComponent("shop.ndjson").path,
                                       options: .init(clock: .stepping(from: start, by: 1000), ids: .sequential(prefix: 0x5A), actor: "ana"))
            try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"))
        }

        func run(_ commands: Command...) throws { for command in commands { try journal.execute(command) } }
        func views(asOf stop: ReplayStop = .end) throws -> HouseholdViews { try ViewEngine.views(journal: path, asOf: stop, useSnapshot: false).0 }
        func remove() { journal.close(); try? FileManager.default.removeItem(at: folder) }
    }

    static func names(_ views: HouseholdViews, _ prefix: String, list: ListID? = nil, limit: Int = 100, now: Timestamp? = nil) -> [String]? {
        SuggestionsView(views, list: list, prefix: prefix, limit: limit, now: now ?? views.asOfTime!)?.items.map(\.name)
    }

    @Test("matching: case, diacritics precomposed or decomposed, word starts, never inside a word; an empty or wordless prefix offers every item")
    func matching() throws {
        let home = try Household()
        defer { home.remove() }
        for (n, name) in ["Crème fraîche", "Cre\u{0300}me brûlée", "CREAM cheese", "Screws", "Ice-cream", "Fromage (frais)", "Øl", "7 Up"].enumerated() {
            try home.run(.createItem(item: id(n + 1), name: name))
        }
        let views = try home.views()
        // Names sort by their lowered form (the views' order), which compares "Crème brûlée" written decomposed as if precomposed.
        let all = ["7 Up", "CREAM cheese", "Cre\u{0300}me brûlée", "Crème fraîche", "Fromage (frais)", "Ice-cream", "Screws", "Øl"]
        #expect(Self.names(views, "") == all)
        #expect(Self.names(views, "  -- ") == all, "no letter or digit: every item")
        #expect(Self.names(views, "creme") == ["Cre\u{0300}me brûlée", "Crème fraîche"])
        #expect(Self.names(views, "CRÈME") == ["Cre\u{0300}me brûlée", "Crème fraîche"])
        #expect(Self.names(views, "Cre\u{0300}me f") == ["Crème fraîche"], "decomposed input; the rest of the name after a word start")
        #expect(Self.names(views, "fr") == ["Crème fraîche", "Fromage (frais)"], "a word start: fraîche, and Fromage and frais (once)")
        #expect(Self.names(views, "frais") == ["Fromage (frais)"], "fraîche does not start with frais")
        #expect(Self.names(views, "cream") == ["CREAM cheese", "Ice-cream"], "punctuation separates words")
        #expect(Self.names(views, "eam") == [], "not inside a word")
        #expect(Self.names(views, "rews") == [])
        #expect(Self.names(views, "creme ") == ["Cre\u{0300}me brûlée", "Crème fraîche"], "a trailing space: the whole word")
        #expect(Self.names(views, "cream ") == ["CREAM cheese", "Ice-cream"], "the end of a name ends its last word")
        #expect(Self.names(views, "crea ") == [], "crea is no whole word")
        #expect(Self.names(views, "creme-fr") == ["Crème fraîche"], "any separator, one word break")
        #expect(Self.names(views, "ø") == ["Øl"], "a letter that does not decompose is kept (lowered)")
        #expect(Self.names(views, "o") == [], "so o does not find Øl")
        #expect(Self.names(views, "up") == ["7 Up"])
        #expect(Self.names(views, "7") == ["7 Up"])
    }

    @Test("left out: the list's unbought entries only (bought entries and other lists' entries stay); deleted items never; an unknown list is refused")
    func exclusion() throws {
        let home = try Household()
        defer { home.remove() }
        let milk: ItemID = id(1), mints: ItemID = id(2), millet: ItemID = id(3), mince: ItemID = id(4)
        let weekly: ListID = id(0x10), party: ListID = id(0x11)
        try home.run(.createItem(item: milk, name: "Milk"), .createItem(item: mints, name: "Mints"), .createItem(item: millet, name: "Millet"),
                     .createItem(item: mince, name: "Mince"), .createList(list: weekly, name: "Weekly"), .createList(list: party, name: "Party"),
                     .addItemToList(list: weekly, item: milk), .addItemToList(list: weekly, item: mints), .addItemToList(list: party, item: millet),
                     .purchaseItem(purchase: id(0x100), item: mints, list: weekly), .deleteItem(item: mince))
        let views = try home.views()
        // Mints, bought once, comes first; then by name.
        #expect(Self.names(views, "mi", list: weekly) == ["Mints", "Millet"], "Milk is on Weekly unbought; Mints was bought there; Millet is on Party")
        #expect(Self.names(views, "mi", list: party) == ["Mints", "Milk"])
        #expect(Self.names(views, "mi") == ["Mints", "Milk", "Millet"], "no list: none left out; the deleted Mince never")
        #expect(SuggestionsView(views, list: id(0x99), now: views.asOfTime!) == nil)
        // Deleting a list keeps it nameable: its unbought entries are still left out.
        try home.run(.deleteList(list: weekly))
        #expect(Self.names(try home.views(), "mi", list: weekly) == ["Mints", "Millet"])
    }

    @Test("order: due by how overdue, then purchases in the 90 days to now (not 91 days back, not reverted), then name; the limit; JSON")
    func order() throws {
        let home = try Household(from: Self.day(199.5))   // purchases are dated back from the time they are recorded
        defer { home.remove() }
        let tea: ItemID = id(1), rice: ItemID = id(2), soap: ItemID = id(3), beans: ItemID = id(4), bread: ItemID = id(5), apples: ItemID = id(6)
        let butter: ItemID = id(7)
        try home.run(.createItem(item: tea, name: "Tea", details: ItemDetails(unitPrice: 349)),
                     .createItem(item: rice, name: "Rice", details: ItemDetails(unitPrice: 199, unit: "kg")),
                     .createItem(item: soap, name: "soap"), .createItem(item: beans, name: "Beans"), .createItem(item: bread, name: "Bread"),
                     .createItem(item: apples, name: "apples"), .createItem(item: butter, name: "Butter"))
        var purchase = 0x100
        func buy(_ item: ItemID, _ days: [Double]) throws {
            for day in days { purchase += 1; try home.run(.purchaseItem(purchase: id(purchase), item: item, purchasedAt: Self.day(day))) }
        }
        let now = Self.day(200)
        try buy(tea, [80, 110, 140])       // every 30 d, last 60 d before now: due, 2.0; 110 is exactly 90 days back (counted)
        try buy(soap, [170, 180, 190])     // every 10 d, last 10 d before now: due, 1.0
        try buy(rice, [150, 160, 170])     // every 10 d, last 30 d before now: due, 3.0
        try buy(beans, [195, 196])         // 2 in 90 days: not a staple
        try buy(bread, [110, 111, 199])    // 3 in the 90 days (110 exactly 90 back); not due (mean 44.5, last 1 d ago)
        try buy(apples, [109, 198, 199])   // 109 is 91 days back: 2 counted; one more bought and reverted
        try buy(apples, [197])
        try home.run(.revertPurchase(purchase: id(purchase)))
        let views = try home.views()
        let index = SuggestionIndex(views)
        let offered = SuggestionsView(views, index: index, now: now)!
        func row(_ item: ItemID, _ name: String, _ due: Bool, _ recent: Int, unit: String? = nil, price: Int? = nil) -> SuggestionsView.Row {
            SuggestionsView.Row(item: item, name: name, unit: unit, unitPrice: price, due: due, recentPurchases: recent)
        }
        let expected = [row(rice, "Rice", true, 3, unit: "kg", price: 199), row(tea, "Tea", true, 2, price: 349), row(soap, "soap", true, 3),
                        row(bread, "Bread", false, 3), row(apples, "apples", false, 2), row(beans, "Beans", false, 2),
                        row(butter, "Butter", false, 0)]
        #expect(offered == SuggestionsView(asOf: views.asOf, now: now, items: expected))
        #expect(SuggestionsView(views, index: index, limit: 4, now: now)?.items == Array(expected.prefix(4)))
        #expect(SuggestionsView(views, index: index, limit: 0, now: now)?.items == [])
        #expect(SuggestionsView(views, index: index, prefix: "b", limit: 2, now: now)?.items == [expected[3], expected[5]])
        // On a list unbought, an item is not due (the due view's notion), though it is still offered for another list.
        let weekly: ListID = id(0x10)
        try home.run(.createList(list: weekly, name: "Weekly"), .addItemToList(list: weekly, item: rice))
        let listed = try home.views()
        #expect(SuggestionsView(listed, prefix: "r", now: now)?.items == [row(rice, "Rice", false, 3, unit: "kg", price: 199)])
        #expect(SuggestionsView(listed, list: weekly, prefix: "r", now: now)?.items == [])
        #expect(offered.json == .object([
            ("view", "suggestions"), ("asOf", .int(views.asOf)), ("now", .string(now.description)),
            ("items", .array(expected.map { row in
                .object([("item", .string(row.item.description)), ("name", .string(row.name)), ("unit", row.unit.map(JSONValue.string) ?? .null),
                         ("unitPrice", row.unitPrice.map(JSONValue.int) ?? .null), ("due", .bool(row.due)), ("recentPurchases", .int(row.recentPurchases))])
            })),
        ]))
        // As of an earlier seq: seq 10 bought tea the second time (day 110); two purchases make no staple, and both are recent.
        let early = try home.views(asOf: .seq(10))
        #expect(SuggestionsView(early, prefix: "tea", now: Self.day(115)) == SuggestionsView(asOf: 10, now: Self.day(115), items: [row(tea, "Tea", false, 2, price: 349)]))
    }

    @Test("the index kept event by event equals the index built afresh, and the view the rule's model, after every event of random histories",
          arguments: [61, 62, 64] as [UInt64])
    func incrementalEqualsRebuilt(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        // Every 100 commands, two live items bought three times more: staples, some of them due at times.
        try journal.write(seed: seed, commands: 700, batches: 7) { journal in
            for item in journal.state.items.values.filter({ !$0.isDeleted }).map(\.id).sorted().prefix(2) {
                for _ in 0..<3 { try journal.execute(.purchaseItem(item: item)) }
            }
        }
        let events = try JournalReader.readAll(path: journal.path)
        var views = HouseholdViews()
        var index = SuggestionIndex(views)
        // The package's one-view read folds the totals only: the same index.
        var totals = StatisticsViews()
        var totalsIndex = SuggestionIndex(totals)
        var checked = (due: 0, offered: 0)
        for recorded in events {
            views.apply(recorded)
            index.update(after: recorded, in: views)
            totals.apply(recorded)
            totalsIndex.update(after: recorded, in: totals)
            let rebuilt = SuggestionIndex(views)
            #expect(index == rebuilt && totalsIndex == rebuilt, "after seq \(recorded.seq) (\(recorded.event.typeName))")
            guard index == rebuilt else { return }
            guard recorded.seq % 7 == 0 else { continue }
            for (prefix, later) in [("", 0.0), ("", 60), ("m", 0), ("MI", 40), ("käse", 0), ("1", 80), ("e\u{0301}", 0)] {
                let now = Timestamp(millisecondsSince1970: recorded.at.millisecondsSince1970 + Int64(later * 86_400_000))
                let list = views.state.lists.keys.sorted().first
                let view = SuggestionsView(views, index: index, list: list, prefix: prefix, limit: 8, now: now)
                let model = Self.model(events.prefix(while: { $0.seq <= recorded.seq }), views: views, list: list, prefix: prefix, limit: 8, now: now)
                #expect(view?.items == model, "seq \(recorded.seq), prefix \(prefix)")
                checked.due += view?.items.filter(\.due).count ?? 0
                checked.offered += view?.items.count ?? 0
            }
        }
        #expect(checked.due > 0 && checked.offered > checked.due, "due and other items were offered: \(checked)")
    }

    @Test("a HouseholdModel's suggestions, asked once and then kept up to date as events arrive, are a rebuild's")
    @MainActor func onTheModel() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, _) = try ViewFoldsDueAndKeysTests.journal(folder)
        let store = try await ShopStore(path: path, options: .init(actor: "ana", device: "test"))
        let model = try await HouseholdModel(store: store)
        let seq = model.views.asOf
        func rebuilt(_ prefix: String) throws -> SuggestionsView? {
            SuggestionsView(try ViewEngine.views(journal: path, useSnapshot: false).0, prefix: prefix, now: Self.start)
        }
        #expect(model.suggestions(prefix: "", now: Self.start) == (try rebuilt("")))
        let butter: ItemID = id(0x777)
        _ = try await store.execute(.createItem(item: butter, name: "Beurre demi-sel"))
        _ = try await store.execute(.purchaseItem(item: butter))
        _ = try await store.execute(.renameItem(item: butter, name: "Beurre salé"))
        try await ViewsKeepWhatTheyShowTests.wait(for: model, through: seq + 3)
        let after = model.suggestions(prefix: "SALE", now: Self.start)
        #expect(after == (try rebuilt("SALE")) && after?.items.map(\.name) == ["Beurre salé"])
        #expect(model.suggestions(prefix: "demi", now: Self.start)?.items == [])
    }

    /// The rule written again: folding with the words as Python would split
    /// them, counting purchases from the events, due from the due view.
    static func model(_ events: ArraySlice<RecordedEvent>, views: HouseholdViews, list: ListID?, prefix: String, limit: Int,
                      now: Timestamp) -> [SuggestionsView.Row] {
        func words(_ text: String) -> [String] {
            var bare = ""
            bare.unicodeScalars.append(contentsOf: unmarked(text))
            return bare.split { character in
                !character.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil }
                    || !(character.isLetter || character.isNumber)
            }.map(String.init)
        }
        func unmarked(_ text: String) -> [Unicode.Scalar] {
            text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                ![.nonspacingMark, .spacingMark, .enclosingMark].contains($0.properties.generalCategory)
            }
        }
        let typed = words(prefix)
        let whole = unmarked(prefix).last.map { words(String($0)).isEmpty } ?? false   // ends with a separator
        func matches(_ name: String) -> Bool {
            guard let last = typed.last else { return true }
            let named = words(name)
            return named.indices.contains { start in
                let rest = named[start...]
                guard rest.count >= typed.count else { return false }
                let pairs = Array(zip(rest, typed))
                return pairs.dropLast().allSatisfy { $0 == $1 } && (whole ? pairs.last?.0 == last : pairs.last?.0.hasPrefix(last) == true)
            }
        }
        var bought: [PurchaseID: (ItemID, Int64)] = [:]
        for recorded in events {
            switch recorded.event {
            case let .itemPurchased(purchase, item, _, _, _, _, purchasedAt, _): bought[purchase] = (item, (purchasedAt ?? recorded.at).millisecondsSince1970)
            case let .purchaseReverted(purchase): bought[purchase] = nil
            default: break
            }
        }
        let from = now.millisecondsSince1970 - 90 * 86_400_000
        let due = Dictionary(uniqueKeysWithValues: DueView(views, now: now).items.map { ($0.item, $0.overdue ?? .infinity) })
        let onList = Set(list.flatMap { views.state.lists[$0] }?.entries.filter { !$0.isBought }.map(\.item) ?? [])
        let rows = views.state.items.values.filter { !$0.isDeleted && !onList.contains($0.id) && matches($0.name) }.map { item in
            SuggestionsView.Row(item: item.id, name: item.name, unit: item.details.unit, unitPrice: item.details.unitPrice, due: due[item.id] != nil,
                                recentPurchases: bought.values.filter { $0.0 == item.id && $0.1 >= from && $0.1 <= now.millisecondsSince1970 }.count)
        }
        return rows.sorted { a, b in
            let (x, y) = (due[a.item] ?? -1, due[b.item] ?? -1)
            if x != y { return x > y }
            if a.recentPurchases != b.recentPurchases { return a.recentPurchases > b.recentPurchases }
            return a.name.lowercased() != b.name.lowercased() ? a.name.lowercased() < b.name.lowercased() : a.item < b.item
        }.prefix(limit).map { $0 }
    }
}
