import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

@Suite struct SL17TransferTests {
    func importing(_ text: String, into state: ShopState = .initial) throws -> (ShopState, [Command]) {
        let archive = try SL17Archive.parse(Array(text.utf8))
        var state = state
        let commands = SL17Transfer.importCommands(archive, into: state, household: .init(timeZone: "UTC"), ids: .sequential())
        var seq = 0
        for command in commands {
            for event in try ShopDecider.decide(command, state, actor: "ana") {
                seq += 1
                state.apply(event, EventContext(seq: seq, at: .earliest, actor: "ana"))
            }
        }
        return (state, commands)
    }

    /// Found by the fuzzer: an archive whose Unknown Location has another name
    /// was renamed only on the second import, so that import was not empty.
    @Test func anUnknownLocationWithAnotherNameIsRenamedOnTheFirstImport() throws {
        let text = #"[{"id":"532B8FBC-D3E1-49DA-9CD2-650CAAE08797","name":"Elsewhere","visitationOrder":2147483647,"red":0.5,"green":0.5,"blue":0.5,"opacity":0.5,"items":[]}]"#
        let (state, first) = try importing(text)
        // The reorder records the archive's id for the Unknown Location (the household's is all zeros).
        #expect(first.map(\.typeName) == ["CreateHousehold", "RecolorLocation", "RenameLocation", "ReorderLocations"])
        #expect(state.locations[.unknown]?.name == "Elsewhere")
        #expect(state.unknownLocationAlias == LocationID("532B8FBC-D3E1-49DA-9CD2-650CAAE08797"))
        #expect(try importing(text, into: state).1 == [])
    }

    @Test func importKeepsIdsOrderColorsAndTrimsNames() throws {
        let text = #"""
        [{"id":"8D83AF5B-4281-4AD9-8061-09E597156CC4","name":" Dairy ","visitationOrder":18,"red":0,"green":0.1,"blue":0.9,"opacity":0.65,
          "items":[{"id":"B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7","name":"Milk ","onList":true,"isAvailable":false,"quantity":2,"dateLastPurchased":"2024-05-01T17:30:00Z"}]},
         {"id":"0FE45A97-1A14-4BE6-81E1-91E30AFD5672","name":"Bakery","visitationOrder":5,"red":1,"green":1,"blue":1,"opacity":1,"items":[]}]
        """#
        let (state, _) = try importing(text)
        let dairy = LocationID("8D83AF5B-4281-4AD9-8061-09E597156CC4")!, bakery = LocationID("0FE45A97-1A14-4BE6-81E1-91E30AFD5672")!
        let milk = ItemID("B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7")!
        #expect(state.visitingOrder == [bakery, dairy, .unknown])
        #expect(state.locations[dairy]?.name == "Dairy")
        #expect(state.locations[dairy]?.color == Color(red: 0, green: 0.1, blue: 0.9, opacity: 0.65))
        #expect(state.items[milk]?.name == "Milk")
        #expect(state.items[milk]?.isAvailable == false)
        let list = try #require(state.lists.values.first)
        #expect(list.name == "Shopping List")
        #expect(list.entries.map(\.item) == [milk])
        #expect(list.entries.map(\.quantity) == [2])
        #expect(state.purchases.values.map(\.effectiveTime) == [Timestamp("2024-05-01T17:30:00.000Z")!], "the purchase time of the archive, not the time of the import")
        #expect(try importing(text, into: state).1 == [], "a second import adds nothing")
        let exported = SL17Transfer.export(state)
        let (again, _) = try importing(String(decoding: exported.encoded(), as: UTF8.self))
        #expect(again.visitingOrder == state.visitingOrder)
        #expect(again.items == state.items)
        #expect(again.locations == state.locations)
    }

    /// An archive's quantities are whole: a decimal one goes out rounded up, a whole one as it is.
    @Test func decimalQuantitiesGoOutRoundedUp() {
        #expect(SL17Transfer.archiveQuantity(Quantity(thousandths: 1_500)) == 2)
        #expect(SL17Transfer.archiveQuantity(Quantity(thousandths: 1)) == 1)
        #expect(SL17Transfer.archiveQuantity(Quantity(thousandths: 2_001)) == 3)
        #expect(SL17Transfer.archiveQuantity(2) == 2)
        #expect(SL17Transfer.archiveQuantity(9999) == 9999)
    }
}

/// The round-trip law: export(import(A)) equals A up to the normalisations
/// docs/TOOL.md lists (names trimmed; locations in visiting order, items by name).
@Suite struct SL17RoundTripTests {
    @Test(arguments: 0..<40 as Range<UInt64>)
    func aRandomArchiveComesBackAsItWas(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let archive = SL17RoundTrip.randomArchive(&rng)
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (exported, plan) = try SL17RoundTrip.importThenExport(archive, path: folder.appendingPathComponent("shop.ndjson").path)
        #expect(plan.changes == [], "an archive the rules take needs no change")
        #expect(exported == SL17RoundTrip.normalised(archive))
        // And its bytes come back the same through the file format.
        #expect(try SL17Archive.parse(exported.encoded()) == exported)
    }

    @Test func namesThatCollideAreImportedAndEachChangeIsSaid() throws {
        let milk = ItemID("B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7")!, other = ItemID("C8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7")!
        let third = ItemID("D8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7")!, empty = ItemID("E8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7")!
        let dairy = LocationID("8D83AF5B-4281-4AD9-8061-09E597156CC4")!, dairy2 = LocationID("9D83AF5B-4281-4AD9-8061-09E597156CC4")!
        func item(_ id: ItemID, _ name: String, quantity: Int = 1) -> SL17Archive.Item {
            SL17Archive.Item(id: id, name: name, onList: false, isAvailable: true, quantity: quantity, dateLastPurchased: nil)
        }
        let archive = SL17Archive(locations: [
            SL17Archive.Location(id: dairy, name: "Dairy", visitationOrder: 3, color: .grey,
                                 items: [item(milk, "Milk"), item(other, "milk "), item(third, "MILK\tfresh", quantity: 0), item(milk, "Milk again")]),
            SL17Archive.Location(id: dairy2, name: " dairy", visitationOrder: 3, color: Color(red: 2, green: 0.5, blue: 0.5, opacity: 1),
                                 items: [item(empty, "   ")]),
        ])
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (exported, plan) = try SL17RoundTrip.importThenExport(archive, path: folder.appendingPathComponent("shop.ndjson").path)
        #expect(plan.changes.map(\.summary) == [
            "renamed location 9D83AF5B-4281-4AD9-8061-09E597156CC4: \" dairy\" → \"dairy (2)\" (\"Dairy\" (8D83AF5B-4281-4AD9-8061-09E597156CC4) has that name, ignoring case)",
            "adjusted location 9D83AF5B-4281-4AD9-8061-09E597156CC4: colour (2.0, 0.5, 0.5, 1.0) → (1.0, 0.5, 0.5, 1.0) (each component is 0 to 1)",
            "renumbered location 9D83AF5B-4281-4AD9-8061-09E597156CC4: visitationOrder 3 → 4 (two locations cannot share a place in the visiting order)",
            "renamed item C8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7: \"milk \" → \"milk (2)\" (\"Milk\" (B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7) has that name, ignoring case)",
            "adjusted item D8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7: quantity 0 → 1 (a quantity is 1 to 9999)",
            "renamed item D8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7: \"MILK\\tfresh\" → \"MILK fresh\" (a name holds no control characters)",
            "merged item B8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7: \"Milk again\" → \"Milk\" (the archive has this id twice; the first is imported)",
            "renamed item E8D6BF87-A422-4DDB-B407-C2E9D0EC7DF7: \"   \" → \"Unnamed item\" (a name is not empty)",
        ])
        #expect(exported.locations.map(\.name) == ["Dairy", "dairy (2)", "Unknown Location"])
        #expect(exported.locations.flatMap(\.items).map(\.name) == ["Milk", "milk (2)", "MILK fresh", "Unnamed item"])
    }

    /// A second import of the archive after its export appends nothing: the
    /// numbers and the Unknown Location's id it gave back are the ones kept.
    @Test func theUnknownLocationsIdAndTheVisitingNumbersComeBack() throws {
        let unknown = LocationID("532B8FBC-D3E1-49DA-9CD2-650CAAE08797")!, meats = LocationID("4E751F3B-8FE5-4EA8-83BE-86B2D744C6BD")!
        let corn = ItemID("E976A9E1-0806-4504-99BF-116004C8DED9")!
        let archive = SL17Archive(locations: [
            SL17Archive.Location(id: unknown, name: "Unknown Location", visitationOrder: SL17Archive.unknownVisitationOrder, color: .grey, items: []),
            SL17Archive.Location(id: meats, name: "Meats", visitationOrder: 15, color: .grey,
                                 items: [SL17Archive.Item(id: corn, name: "Corn Ears", onList: false, isAvailable: true, quantity: 6, dateLastPurchased: nil)]),
        ])
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let (exported, _) = try SL17RoundTrip.importThenExport(archive, path: path)
        #expect(exported.locations.map(\.id) == [meats, unknown])
        #expect(exported.locations.map(\.visitationOrder) == [15, SL17Archive.unknownVisitationOrder])
        #expect(exported.locations[0].items.map(\.quantity) == [6])
        let journal = try Journal.open(path: path)
        defer { journal.close() }
        #expect(journal.state.items[corn]?.details.quantity == 6, "the quantity it goes on a list with")
        #expect(SL17Transfer.plan(exported, into: journal.state, ids: .random).commands == [])
        // Put on a list without a quantity, it goes on with its own.
        let list = ListID()
        try journal.execute(.createList(list: list, name: "Weekly"))
        try journal.execute(.addItemToList(list: list, item: corn))
        #expect(journal.state.lists[list]?.entries.map(\.quantity) == [6])
    }
}
