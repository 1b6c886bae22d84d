import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

@Suite(.enabled(if: Fixtures.sl17 != nil, Comment(rawValue: Fixtures.sl17Missing)))
struct SL17FixtureTests {
    func imported() throws -> (path: String, folder: URL, list: ListID) {
        let folder = Scratch.directory()
        let path = folder.appendingPathComponent("shop.ndjson").path
        let archive = try SL17Archive.parse(Fixtures.sl17!)
        let journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0x17), actor: "import"))
        defer { journal.close() }
        let commands = SL17Transfer.importCommands(archive, into: journal.state,
                                                   household: .init(name: "Home", currency: "USD", timeZone: "America/New_York"),
                                                   ids: journal.options.ids)
        let results = try journal.execute(batch: commands.map { CommandEnvelope($0) })
        for result in results { _ = try result.get() }
        let list = journal.state.lists.values.first { $0.name == "Shopping List" }!.id
        return (path, folder, list)
    }

    @Test func theByLocationListShowsTheArchivesSectionsInVisitingOrder() throws {
        let (path, folder, list) = try imported()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path).0
        #expect(views.state.locations.count == 24)
        #expect(views.state.items.count == 147)
        let view = try #require(ShoppingListView(views, list: list, grouping: .byLocation))
        #expect(view.sections.map(\.title) == ["Deli", "Beyond Deli", "Dairy (18)", "Laundry (11)",
                                               "Bread & Salad Dressings (10)", "Baking Supplies (8)", "Beverages (5)"])
        #expect(view.remaining == 12)
        let dairy = view.sections[2].entries
        #expect(dairy.map(\.name) == ["Dip for chips", "Half & Half, 1 qt", "Milk", "Skinny cow"])
        #expect(dairy.map(\.quantity) == [1, 1, 1, 2])
        #expect(view.sections[3].entries.map(\.name) == ["Trash bags for kitchen, tall, 13 gal"], "names are trimmed")
    }

    @Test func deletingALocationMovesItsItemsToUnknownLast() throws {
        let (path, folder, list) = try imported()
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = try Journal.open(path: path)
        let dairy = journal.state.locations.values.first { $0.name == "Dairy (18)" }!.id
        try journal.execute(.deleteLocation(location: dairy))
        journal.close()
        let view = try #require(ShoppingListView(try ViewEngine.views(journal: path).0, list: list, grouping: .byLocation))
        #expect(view.sections.map(\.title) == ["Deli", "Beyond Deli", "Laundry (11)", "Bread & Salad Dressings (10)",
                                               "Baking Supplies (8)", "Beverages (5)", "Unknown Location"])
        #expect(view.sections.last?.entries.map(\.name) == ["Dip for chips", "Half & Half, 1 qt", "Milk", "Skinny cow"])
        #expect(view.remaining == 12)
    }
}

/// The real archive, imported and exported: every item's quantity, every
/// location's id and `visitationOrder` come back (issue 34).
@Suite(.enabled(if: Fixtures.sl17 != nil, Comment(rawValue: Fixtures.sl17Missing)))
struct SL17FixtureRoundTripTests {
    @Test func theRealArchiveComesBackAsItWas() throws {
        let archive = try SL17Archive.parse(Fixtures.sl17!)
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (exported, plan) = try SL17RoundTrip.importThenExport(archive, path: folder.appendingPathComponent("shop.ndjson").path)
        #expect(plan.changes == [])
        #expect(exported == SL17RoundTrip.normalised(archive))
        let quantities = Dictionary(uniqueKeysWithValues: exported.locations.flatMap(\.items).map { ($0.name, $0.quantity) })
        #expect(quantities["Corn Ears"] == 6 && quantities["Lemons"] == 3)
        #expect(exported.locations.last?.id == LocationID("532B8FBC-D3E1-49DA-9CD2-650CAAE08797"))
    }
}
