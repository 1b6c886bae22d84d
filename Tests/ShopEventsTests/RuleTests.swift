import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// A household in memory: decide, then evolve, as the journal does.
struct Fixture {
    var state = ShopState.initial
    var seq = 0
    var clock = TestClock.start

    @discardableResult
    mutating func run(_ command: Command, actor: String = "ana") throws -> [Event] {
        let events = try ShopDecider.decide(command, state, actor: actor)
        for event in events {
            seq += 1
            clock = clock.adding(milliseconds: 60_000)
            state.apply(RecordedEvent(seq: seq, id: EventID(), at: clock, actor: actor, command: CommandID(),
                                      event: event, prev: .zero))
        }
        return events
    }

    func rejection(_ command: Command, actor: String = "ana") -> RuleViolation.Reason? {
        do {
            _ = try ShopDecider.decide(command, state, actor: actor)
            return nil
        } catch { return error.reason }
    }

    static let home = HouseholdID("00000000-0000-0000-0000-0000000000AA")!

    static func started() throws -> Fixture {
        var fixture = Fixture()
        try fixture.run(.createHousehold(household: home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        return fixture
    }
}

func id<K>(_ n: Int) -> EntityID<K> {
    EntityID(String(format: "00000000-0000-0000-0000-%012X", n))!
}

@Suite struct HouseholdRules {
    @Test func theFirstCommandMustCreateTheHousehold() throws {
        let fixture = Fixture()
        #expect(fixture.rejection(.createItem(item: id(1), name: "Milk", location: nil, details: .none)) == .noHousehold)
        var started = try Fixture.started()
        #expect(started.state.household == Household(id: Fixture.home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        #expect(started.rejection(.createHousehold(household: id(2), name: "Again", currency: "EUR", timeZone: "UTC")) == .householdExists)
        #expect(try started.run(.createItem(item: id(1), name: "Milk", location: nil, details: .none)).count == 1)
    }

    @Test func itBringsTheUnknownLocation() throws {
        let fixture = try Fixture.started()
        #expect(fixture.state.locations[.unknown] == Location(id: .unknown, name: "Unknown Location",
                                                               position: 2_147_483_647, color: .grey))
        #expect(fixture.state.visitingOrder == [.unknown])
    }

    @Test func currencyAndTimeZoneAreChecked() {
        let fixture = Fixture()
        #expect(fixture.rejection(.createHousehold(household: id(1), name: "H", currency: "eur", timeZone: "UTC")) == .invalidCurrency)
        #expect(fixture.rejection(.createHousehold(household: id(1), name: "H", currency: "EURO", timeZone: "UTC")) == .invalidCurrency)
        #expect(fixture.rejection(.createHousehold(household: id(1), name: "H", currency: "EUR", timeZone: "Mars/Olympus")) == .invalidTimeZone)
        #expect(fixture.rejection(.createHousehold(household: id(1), name: " ", currency: "EUR", timeZone: "UTC")) == .invalidName)
        #expect(fixture.rejection(.createHousehold(household: id(1), name: "H", currency: "USD", timeZone: "America/New_York")) == nil)
    }
}

@Suite struct LocationRules {
    @Test func positionsAreAssignedLastBeforeUnknown() throws {
        var f = try Fixture.started()
        #expect(try f.run(.createLocation(location: id(1), name: "  Produce ", color: nil))
                == [.locationCreated(location: id(1), name: "Produce", position: 1, color: .grey)])
        let red = Color(red: 1, green: 0, blue: 0, opacity: 1)
        #expect(try f.run(.createLocation(location: id(2), name: "Dairy", color: red))
                == [.locationCreated(location: id(2), name: "Dairy", position: 2, color: red)])
        #expect(f.state.visitingOrder == [id(1), id(2), .unknown])
        #expect(try f.run(.reorderLocations(order: [id(2), id(1)])) == [.locationsReordered(order: [id(2), id(1)])])
        #expect(f.state.visitingOrder == [id(2), id(1), .unknown])
        #expect(f.state.locations[id(2)]?.position == 1)
        #expect(try f.run(.createLocation(location: id(3), name: "Bakery", color: nil))
                == [.locationCreated(location: id(3), name: "Bakery", position: 3, color: .grey)])
    }

    @Test func reorderMustNameExactlyTheLiveLocationsButUnknown() throws {
        var f = try Fixture.started()
        try f.run(.createLocation(location: id(1), name: "A", color: nil))
        try f.run(.createLocation(location: id(2), name: "B", color: nil))
        #expect(f.rejection(.reorderLocations(order: [id(1)])) == .orderMismatch)
        #expect(f.rejection(.reorderLocations(order: [id(1), id(2), id(2)])) == .orderMismatch)
        #expect(f.rejection(.reorderLocations(order: [id(1), id(2), id(9)])) == .orderMismatch)
        #expect(f.rejection(.reorderLocations(order: [id(1), id(2), .unknown])) == .unknownLocationFixed)
        try f.run(.deleteLocation(location: id(1)))
        #expect(f.rejection(.reorderLocations(order: [id(2), id(1)])) == .orderMismatch)
        #expect(f.rejection(.reorderLocations(order: [id(2)])) == nil)
    }

    /// A reorder may give the stops their numbers (an archive's `visitationOrder`) and the Unknown Location another app's id.
    @Test func aReorderMayNumberTheStopsAndNameTheUnknownLocationsAlias() throws {
        var f = try Fixture.started()
        try f.run(.createLocation(location: id(1), name: "A", color: nil))
        try f.run(.createLocation(location: id(2), name: "B", color: nil))
        let alias = LocationID(UUID(uuidString: "532B8FBC-D3E1-49DA-9CD2-650CAAE08797")!)
        for (positions, why) in [([4], "one number for two stops"), ([0, 5], "below 1"), ([5, 5], "not increasing"),
                                 ([9, 4], "decreasing"), ([4, Limits.unknownLocationPosition], "the Unknown Location's")] {
            #expect(f.rejection(.reorderLocations(order: [id(2), id(1)], positions: positions)) == .invalidPosition, "\(why)")
        }
        #expect(f.rejection(.reorderLocations(order: [id(2), id(1)], unknownAlias: id(1))) == .idInUse, "an id of the journal")
        #expect(f.rejection(.reorderLocations(order: [id(2), id(1)], unknownAlias: .unknown)) == .idInUse)
        #expect(try f.run(.reorderLocations(order: [id(2), id(1)], positions: [4, 15], unknownAlias: alias))
                == [.locationsReordered(order: [id(2), id(1)], positions: [4, 15], unknownAlias: alias)])
        #expect(f.state.visitingOrder == [id(2), id(1), .unknown])
        #expect([id(2), id(1)].map { f.state.locations[$0]?.position } == [4, 15])
        #expect(f.state.unknownLocationAlias == alias)
        #expect(f.state.isUsed(alias.uuid), "the alias is taken: no created thing may have it")
        #expect(f.rejection(.createLocation(location: alias, name: "C", color: nil)) == .idInUse)
        // A new stop goes last before Unknown; a plain reorder numbers them 1…n and keeps the alias.
        #expect(try f.run(.createLocation(location: id(3), name: "C", color: nil))
                == [.locationCreated(location: id(3), name: "C", position: 16, color: .grey)])
        try f.run(.reorderLocations(order: [id(1), id(2), id(3)]))
        #expect([id(1), id(2), id(3)].map { f.state.locations[$0]?.position } == [1, 2, 3])
        #expect(f.state.unknownLocationAlias == alias)
        #expect(f.rejection(.reorderLocations(order: [id(1), id(2), id(3)], unknownAlias: alias)) == nil, "the same alias again")
    }

    @Test func unknownCanBeRenamedAndRecoloredButNeverDeleted() throws {
        var f = try Fixture.started()
        #expect(try f.run(.renameLocation(location: .unknown, name: "Elsewhere")) == [.locationRenamed(location: .unknown, name: "Elsewhere")])
        let blue = Color(red: 0, green: 0, blue: 1, opacity: 0.5)
        #expect(try f.run(.recolorLocation(location: .unknown, color: blue)) == [.locationRecolored(location: .unknown, color: blue)])
        #expect(f.rejection(.deleteLocation(location: .unknown)) == .unknownLocationFixed)
        try f.run(.createLocation(location: id(1), name: "Zzz", color: nil))
        #expect(f.state.visitingOrder.last == .unknown)
    }

    @Test func deletingRelocatesItsItemsToUnknownFirst() throws {
        var f = try Fixture.started()
        try f.run(.createLocation(location: id(1), name: "Dairy", color: nil))
        try f.run(.createItem(item: id(12), name: "Milk", location: id(1), details: .none))
        try f.run(.createItem(item: id(11), name: "Butter", location: id(1), details: .none))
        try f.run(.createItem(item: id(13), name: "Bread", location: .unknown, details: .none))
        #expect(try f.run(.deleteLocation(location: id(1))) == [
            .itemRelocated(item: id(11), location: .unknown), .itemRelocated(item: id(12), location: .unknown),
            .locationDeleted(location: id(1)),
        ])
        #expect(f.state.items[id(12)]?.location == .unknown)
        #expect(f.rejection(.renameLocation(location: id(1), name: "X")) == .locationDeleted)
        #expect(f.rejection(.deleteLocation(location: id(1))) == .locationDeleted)
        #expect(f.rejection(.deleteLocation(location: id(77))) == .unknownLocation)
        #expect(f.rejection(.createLocation(location: id(1), name: "Dairy again", color: nil)) == .idInUse)
        #expect(f.rejection(.createLocation(location: id(2), name: "dairy", color: nil)) == nil, "a deleted location's name is free")
    }

    @Test func namesAndColorsAreChecked() throws {
        var f = try Fixture.started()
        try f.run(.createLocation(location: id(1), name: "Dairy", color: nil))
        #expect(f.rejection(.createLocation(location: id(2), name: " DAIRY ", color: nil)) == .nameTaken)
        #expect(f.rejection(.createLocation(location: id(2), name: "unknown location", color: nil)) == .nameTaken)
        #expect(f.rejection(.renameLocation(location: id(1), name: "dairy")) == nil, "a thing may keep its own name")
        #expect(f.rejection(.createLocation(location: id(2), name: String(repeating: "x", count: 201), color: nil)) == .invalidName)
        #expect(f.rejection(.createLocation(location: id(2), name: String(repeating: "x", count: 200), color: nil)) == nil)
        #expect(f.rejection(.createLocation(location: id(2), name: "\n\t ", color: nil)) == .invalidName)
        #expect(f.rejection(.createLocation(location: id(2), name: "Bad", color: Color(red: 1.5, green: 0, blue: 0, opacity: 1))) == .invalidColor)
        #expect(f.rejection(.recolorLocation(location: id(1), color: Color(red: .nan, green: 0, blue: 0, opacity: 1))) == .invalidColor)
        #expect(f.rejection(.createLocation(location: id(0xAA), name: "Home id", color: nil)) == .idInUse)
    }

    @Test("names are trimmed as Foundation trims white space and newlines, and counted in characters, not bytes")
    func trimmingAndCounting() throws {
        let samples = ["Milk", " Milk", "Milk ", "\tMilk\n", "\u{00A0}Milk\u{2003}", "Milk\u{0085}", "\u{3000}", "Mi lk", "é", "e\u{0301}",
                       "Milk \u{0301}", "\u{7F}Milk", "Milk\u{7F}", "🥛", " 🥛 ", "", " ", "a\u{200B}", "\r\nMilk\r\n", "Ünïcödé "]
        for sample in samples {
            #expect(ShopState.trimmed(sample) == sample.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(sample.unicodeScalars))")
        }
        var f = try Fixture.started()
        // 200 characters of four bytes each: within the limit; 201 are not.
        #expect(f.rejection(.createLocation(location: id(2), name: String(repeating: "🥛", count: 200), color: nil)) == nil)
        #expect(f.rejection(.createLocation(location: id(2), name: String(repeating: "🥛", count: 201), color: nil)) == .invalidName)
        #expect(f.rejection(.createLocation(location: id(2), name: "\u{00A0}\u{2003}", color: nil)) == .invalidName)
        try f.run(.createLocation(location: id(3), name: "\u{00A0}Dairy\u{2003}", color: nil))
        #expect(f.state.locations[id(3)]?.name == "Dairy")
    }
}

@Suite struct ItemRules {
    /// An item's own quantity (1 to 9999) is what `AddItemToList` without one puts on the list; without it, 1.
    @Test func anItemsQuantityIsTheOneItGoesOnAListWith() throws {
        var f = try Fixture.started()
        for bad: Quantity in [0, 10_000, -3, Quantity(thousandths: 9_999_001), Quantity(thousandths: -1)] {
            #expect(f.rejection(.createItem(item: id(1), name: "Eggs", location: nil, details: ItemDetails(quantity: bad))) == .invalidQuantity, "\(bad)")
        }
        #expect(try f.run(.createItem(item: id(1), name: "Eggs", location: nil, details: ItemDetails(quantity: 12)))
                == [.itemCreated(item: id(1), name: "Eggs", location: .unknown, details: ItemDetails(quantity: 12))])
        try f.run(.createItem(item: id(2), name: "Bread", location: nil, details: .none))
        try f.run(.createList(list: id(10), name: "Weekly", priority: nil))
        #expect(try f.run(.addItemToList(list: id(10), item: id(1), quantity: nil)) == [.itemAddedToList(list: id(10), item: id(1), quantity: 12)])
        #expect(try f.run(.addItemToList(list: id(10), item: id(2), quantity: nil)) == [.itemAddedToList(list: id(10), item: id(2), quantity: 1)])
        // The details are the complete new set: a change without the quantity clears it.
        try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: 299))))
        #expect(f.state.items[id(1)]?.details == ItemDetails(unitPrice: 299))
        #expect(f.rejection(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(quantity: 0)))) == .invalidQuantity)
        // Kept in 32 bits: a quantity beyond them is kept as the nearest end, still refused.
        #expect(ItemDetails(quantity: Quantity(thousandths: Int.max)).quantity == Quantity(thousandths: Int(Int32.max)))
        #expect(ItemDetails(quantity: Quantity(thousandths: Int.min)).quantity == Quantity(thousandths: Int(Int32.min) + 1))
        // Thousandths: 0.001 and 9999 are the ends.
        #expect(try f.run(.changeItemDetails(item: id(2), patch: ItemDetailsPatch(replacingWith: ItemDetails(quantity: Quantity(thousandths: 1)))))
                == [.itemDetailsChanged(item: id(2), details: ItemDetails(quantity: Quantity(thousandths: 1)))])
        #expect(try f.run(.changeItemDetails(item: id(2), patch: ItemDetailsPatch(replacingWith: ItemDetails(quantity: 9999))))
                == [.itemDetailsChanged(item: id(2), details: ItemDetails(quantity: 9999))])
    }

    @Test func createAndChangeAnItem() throws {
        var f = try Fixture.started()
        #expect(try f.run(.createItem(item: id(1), name: " Milk ", location: nil,
                                      details: ItemDetails(category: "  Dairy ", notes: "", unitPrice: 119, photo: "milk.jpg")))
                == [.itemCreated(item: id(1), name: "Milk", location: .unknown,
                                 details: ItemDetails(category: "Dairy", notes: nil, unitPrice: 119, photo: "milk.jpg"))])
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(notes: "organic"))))
                == [.itemDetailsChanged(item: id(1), details: ItemDetails(notes: "organic"))])
        #expect(f.state.items[id(1)]?.details == ItemDetails(notes: "organic"), "the complete new set: absent fields are cleared")
        #expect(try f.run(.setItemAvailability(item: id(1), available: false)) == [.itemAvailabilityChanged(item: id(1), available: false)])
        #expect(f.state.items[id(1)]?.isAvailable == false)
        #expect(try f.run(.renameItem(item: id(1), name: "Oat milk")) == [.itemRenamed(item: id(1), name: "Oat milk")])
    }

    @Test func namesAreUniqueAmongLiveItemsIgnoringCase() throws {
        var f = try Fixture.started()
        try f.run(.createItem(item: id(1), name: "Milk", location: nil, details: .none))
        #expect(f.rejection(.createItem(item: id(2), name: "mILK", location: nil, details: .none)) == .nameTaken)
        try f.run(.createItem(item: id(2), name: "Bread", location: nil, details: .none))
        #expect(f.rejection(.renameItem(item: id(2), name: "milk")) == .nameTaken)
        try f.run(.deleteItem(item: id(1)))
        #expect(f.rejection(.createItem(item: id(3), name: "MILK", location: nil, details: .none)) == nil)
        #expect(f.rejection(.createItem(item: id(1), name: "Cheese", location: nil, details: .none)) == .idInUse)
    }

    @Test func detailsAndReferencesAreChecked() throws {
        var f = try Fixture.started()
        try f.run(.createLocation(location: id(5), name: "Gone", color: nil))
        try f.run(.deleteLocation(location: id(5)))
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: id(6), details: .none)) == .unknownLocation)
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: id(5), details: .none)) == .locationDeleted)
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: nil, details: ItemDetails(unitPrice: -1))) == .invalidPrice)
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: nil, details: ItemDetails(unitPrice: 100_000_001))) == .invalidPrice)
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: nil, details: ItemDetails(unitPrice: 100_000_000))) == nil)
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: nil, details: ItemDetails(unitPrice: 0))) == nil)
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: nil, details: ItemDetails(notes: String(repeating: "n", count: 10_001)))) == .invalidText)
        #expect(f.rejection(.createItem(item: id(1), name: "A", location: nil, details: ItemDetails(category: String(repeating: "c", count: 201)))) == .invalidText)
        #expect(f.rejection(.renameItem(item: id(9), name: "B")) == .unknownItem)
        #expect(f.rejection(.relocateItem(item: id(9), location: .unknown)) == .unknownItem)
        try f.run(.createItem(item: id(1), name: "A", location: nil, details: .none))
        #expect(f.rejection(.relocateItem(item: id(1), location: id(5))) == .locationDeleted)
        #expect(try f.run(.relocateItem(item: id(1), location: .unknown)) == [.itemRelocated(item: id(1), location: .unknown)])
    }

    @Test func deletingTakesItOffEveryListFirst() throws {
        var f = try Fixture.started()
        try f.run(.createItem(item: id(1), name: "Milk", location: nil, details: .none))
        try f.run(.createList(list: id(22), name: "Weekly", priority: nil))
        try f.run(.createList(list: id(21), name: "Party", priority: .high))
        try f.run(.createList(list: id(23), name: "Other", priority: .low))
        try f.run(.addItemToList(list: id(22), item: id(1), quantity: 2))
        try f.run(.addItemToList(list: id(21), item: id(1), quantity: nil))
        try f.run(.purchaseItem(purchase: id(30), item: id(1), list: id(21), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        #expect(try f.run(.deleteItem(item: id(1))) == [
            .itemRemovedFromList(list: id(21), item: id(1)), .itemRemovedFromList(list: id(22), item: id(1)), .itemDeleted(item: id(1)),
        ])
        #expect(f.state.lists.values.allSatisfy { $0.entries.isEmpty })
        #expect(f.state.purchases[id(30)]?.item == id(1), "its purchase history stays")
        #expect(f.rejection(.deleteItem(item: id(1))) == .itemDeleted)
        #expect(f.rejection(.addItemToList(list: id(22), item: id(1), quantity: 1)) == .itemDeleted)
    }
}

@Suite struct ListRules {
    @Test func createRenameAndPrioritise() throws {
        var f = try Fixture.started()
        #expect(try f.run(.createList(list: id(1), name: " Weekly ", priority: nil)) == [.listCreated(list: id(1), name: "Weekly", priority: .normal)])
        #expect(f.rejection(.createList(list: id(2), name: "WEEKLY", priority: nil)) == .nameTaken)
        #expect(try f.run(.renameList(list: id(1), name: "Week")) == [.listRenamed(list: id(1), name: "Week")])
        #expect(try f.run(.setListPriority(list: id(1), priority: .high)) == [.listPriorityChanged(list: id(1), priority: .high)])
        #expect(f.state.lists[id(1)]?.priority == .high)
        #expect(f.rejection(.renameList(list: id(9), name: "X")) == .unknownList)
    }

    @Test func aSoftDeletedListAcceptsOnlyRestoreAndPurge() throws {
        var f = try Fixture.started()
        try f.run(.createItem(item: id(5), name: "Milk", location: nil, details: .none))
        try f.run(.createList(list: id(1), name: "Weekly", priority: nil))
        try f.run(.addItemToList(list: id(1), item: id(5), quantity: nil))
        #expect(f.rejection(.restoreList(list: id(1))) == .listNotDeleted)
        #expect(f.rejection(.purgeList(list: id(1))) == .listNotDeleted)
        #expect(try f.run(.deleteList(list: id(1)), actor: "ben") == [.listDeleted(list: id(1))])
        #expect(f.state.lists[id(1)]?.deletedBy == "ben")
        for command: Command in [.renameList(list: id(1), name: "X"), .setListPriority(list: id(1), priority: .low),
                                 .deleteList(list: id(1)), .addItemToList(list: id(1), item: id(5), quantity: 1),
                                 .changeQuantity(list: id(1), item: id(5), quantity: 2),
                                 .removeItemFromList(list: id(1), item: id(5)), .reorderList(list: id(1), order: [id(5)]),
                                 .purchaseItem(purchase: id(9), item: id(5), list: id(1), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil),
                                 .clearBought(list: id(1)), .startTrip(trip: id(9), list: id(1))] {
            #expect(f.rejection(command) == .listDeleted, "\(command.typeName)")
        }
        #expect(f.rejection(.createList(list: id(2), name: "weekly", priority: nil)) == nil, "a deleted list's name is free")
        #expect(try f.run(.restoreList(list: id(1))) == [.listRestored(list: id(1))])
        #expect(f.state.lists[id(1)]?.entries.map(\.item) == [id(5)], "restoring keeps the entries")
        try f.run(.deleteList(list: id(1)))
        try f.run(.createList(list: id(2), name: "WEEKLY", priority: nil))
        #expect(f.rejection(.restoreList(list: id(1))) == .nameTaken)
        #expect(try f.run(.purgeList(list: id(1))) == [.listPurged(list: id(1))])
        #expect(f.state.lists[id(1)] == nil)
        #expect(f.rejection(.restoreList(list: id(1))) == .unknownList)
        #expect(f.rejection(.createList(list: id(1), name: "Reuse", priority: nil)) == .idInUse)
    }

    @Test func entriesQuantitiesAndOrder() throws {
        var f = try Fixture.started()
        for n in 1...3 { try f.run(.createItem(item: id(n), name: "Item \(n)", location: nil, details: .none)) }
        try f.run(.createList(list: id(10), name: "Weekly", priority: nil))
        #expect(try f.run(.addItemToList(list: id(10), item: id(2), quantity: nil)) == [.itemAddedToList(list: id(10), item: id(2), quantity: 1)])
        #expect(try f.run(.addItemToList(list: id(10), item: id(1), quantity: 9999)) == [.itemAddedToList(list: id(10), item: id(1), quantity: 9999)])
        #expect(f.rejection(.addItemToList(list: id(10), item: id(1), quantity: 1)) == .alreadyOnList)
        #expect(f.rejection(.addItemToList(list: id(10), item: id(3), quantity: 0)) == .invalidQuantity)
        #expect(f.rejection(.addItemToList(list: id(10), item: id(3), quantity: 10_000)) == .invalidQuantity)
        #expect(f.rejection(.addItemToList(list: id(10), item: id(8), quantity: 1)) == .unknownItem)
        #expect(try f.run(.changeQuantity(list: id(10), item: id(2), quantity: 4)) == [.listEntryQuantityChanged(list: id(10), item: id(2), quantity: 4)])
        #expect(f.rejection(.changeQuantity(list: id(10), item: id(3), quantity: 4)) == .notOnList)
        #expect(f.rejection(.changeQuantity(list: id(10), item: id(2), quantity: 0)) == .invalidQuantity)
        #expect(f.rejection(.reorderList(list: id(10), order: [id(1)])) == .orderMismatch)
        #expect(f.rejection(.reorderList(list: id(10), order: [id(1), id(2), id(3)])) == .orderMismatch)
        #expect(f.rejection(.reorderList(list: id(10), order: [id(1), id(1)])) == .orderMismatch)
        #expect(try f.run(.reorderList(list: id(10), order: [id(1), id(2)])) == [.listReordered(list: id(10), order: [id(1), id(2)])])
        #expect(f.state.lists[id(10)]?.entries.map(\.item) == [id(1), id(2)])
        #expect(f.state.lists[id(10)]?.entries.map(\.quantity) == [9999, 4])
        #expect(try f.run(.removeItemFromList(list: id(10), item: id(1))) == [.itemRemovedFromList(list: id(10), item: id(1))])
        #expect(f.rejection(.removeItemFromList(list: id(10), item: id(1))) == .notOnList)
    }

    @Test func aBoughtItemAddedAgainGetsAFreshEntryLast() throws {
        var f = try Fixture.started()
        for n in 1...2 { try f.run(.createItem(item: id(n), name: "Item \(n)", location: nil, details: .none)) }
        try f.run(.createList(list: id(10), name: "Weekly", priority: nil))
        try f.run(.addItemToList(list: id(10), item: id(1), quantity: 3))
        try f.run(.addItemToList(list: id(10), item: id(2), quantity: 1))
        try f.run(.purchaseItem(purchase: id(20), item: id(1), list: id(10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        #expect(f.rejection(.changeQuantity(list: id(10), item: id(1), quantity: 2)) == .alreadyBought)
        #expect(try f.run(.addItemToList(list: id(10), item: id(1), quantity: 2)) == [.itemAddedToList(list: id(10), item: id(1), quantity: 2)])
        let entries = f.state.lists[id(10)]!.entries
        #expect(entries.map(\.item) == [id(2), id(1)])
        #expect(entries.map(\.isBought) == [false, false])
        #expect(entries.map(\.quantity) == [1, 2])
    }

    @Test func clearBoughtRemovesOnlyBoughtEntries() throws {
        var f = try Fixture.started()
        for n in 1...2 { try f.run(.createItem(item: id(n), name: "Item \(n)", location: nil, details: .none)) }
        try f.run(.createList(list: id(10), name: "Weekly", priority: nil))
        try f.run(.addItemToList(list: id(10), item: id(1), quantity: nil))
        try f.run(.addItemToList(list: id(10), item: id(2), quantity: nil))
        #expect(f.rejection(.clearBought(list: id(10))) == .nothingToClear)
        try f.run(.purchaseItem(purchase: id(20), item: id(2), list: id(10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        #expect(try f.run(.clearBought(list: id(10))) == [.boughtEntriesCleared(list: id(10))])
        #expect(f.state.lists[id(10)]?.entries.map(\.item) == [id(1)])
    }
}

@Suite struct PurchaseRules {
    func shop() throws -> Fixture {
        var f = try Fixture.started()
        try f.run(.createLocation(location: id(50), name: "Dairy", color: nil))
        try f.run(.createLocation(location: id(51), name: "Market", color: nil))
        try f.run(.createItem(item: id(1), name: "Milk", location: id(50), details: ItemDetails(unitPrice: 119)))
        try f.run(.createItem(item: id(2), name: "Bread", location: nil, details: .none))
        try f.run(.createList(list: id(10), name: "Weekly", priority: nil))
        try f.run(.addItemToList(list: id(10), item: id(1), quantity: 3))
        return f
    }

    @Test func onAListDefaultsComeFromTheEntryAndTheItem() throws {
        var f = try shop()
        #expect(try f.run(.purchaseItem(purchase: id(20), item: id(1), list: id(10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
                == [.itemPurchased(purchase: id(20), item: id(1), list: id(10), quantity: 3, unitPrice: 119, location: id(50), purchasedAt: nil)])
        #expect(f.state.lists[id(10)]?.entries.first?.purchase == id(20))
        #expect(f.rejection(.purchaseItem(purchase: id(21), item: id(1), list: id(10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)) == .alreadyBought)
        #expect(f.rejection(.purchaseItem(purchase: id(21), item: id(2), list: id(10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)) == .notOnList)
        #expect(f.rejection(.purchaseItem(purchase: id(20), item: id(2), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)) == .idInUse)
    }

    @Test func offAListAndWithExplicitValues() throws {
        var f = try shop()
        let when = Timestamp("2020-05-01T10:00:00.000Z")!
        #expect(try f.run(.purchaseItem(purchase: id(20), item: id(2), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
                == [.itemPurchased(purchase: id(20), item: id(2), list: nil, quantity: 1, unitPrice: nil, location: .unknown, purchasedAt: nil)])
        #expect(try f.run(.purchaseItem(purchase: id(21), item: id(1), list: nil, quantity: 2, unitPrice: 99, location: id(51), purchasedAt: when))
                == [.itemPurchased(purchase: id(21), item: id(1), list: nil, quantity: 2, unitPrice: 99, location: id(51), purchasedAt: when)])
        #expect(f.rejection(.purchaseItem(purchase: id(22), item: id(1), list: nil, quantity: 0, unitPrice: nil, location: nil, purchasedAt: nil)) == .invalidQuantity)
        #expect(f.rejection(.purchaseItem(purchase: id(22), item: id(1), list: nil, quantity: nil, unitPrice: -5, location: nil, purchasedAt: nil)) == .invalidPrice)
        #expect(f.rejection(.purchaseItem(purchase: id(22), item: id(1), list: nil, quantity: nil, unitPrice: nil, location: id(99), purchasedAt: nil)) == .unknownLocation)
        #expect(f.rejection(.purchaseItem(purchase: id(22), item: id(98), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)) == .unknownItem)
        #expect(f.rejection(.purchaseItem(purchase: id(22), item: id(1), list: id(97), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)) == .unknownList)
    }

    @Test func revertingMakesTheEntryUnboughtWhileItIsStillBought() throws {
        var f = try shop()
        try f.run(.purchaseItem(purchase: id(20), item: id(1), list: id(10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        #expect(try f.run(.revertPurchase(purchase: id(20))) == [.purchaseReverted(purchase: id(20))])
        #expect(f.state.purchases[id(20)]?.isReverted == true)
        #expect(f.state.lists[id(10)]?.entries.first?.isBought == false)
        #expect(f.rejection(.revertPurchase(purchase: id(20))) == .alreadyReverted)
        #expect(f.rejection(.revertPurchase(purchase: id(29))) == .unknownPurchase)
        // bought again, cleared, then the purchase reverted: nothing comes back on the list
        try f.run(.purchaseItem(purchase: id(21), item: id(1), list: id(10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        try f.run(.clearBought(list: id(10)))
        try f.run(.revertPurchase(purchase: id(21)))
        #expect(f.state.lists[id(10)]?.entries == [])
    }
}

@Suite struct TripRules {
    @Test func oneTripAtATimeAndItsTimer() throws {
        var f = try Fixture.started()
        #expect(try f.run(.startTrip(trip: id(1), list: nil)) == [.tripStarted(trip: id(1), list: nil)])
        #expect(f.rejection(.startTrip(trip: id(2), list: nil)) == .tripInProgress)
        #expect(f.rejection(.resumeTrip(trip: id(1))) == .tripNotPaused)
        try f.run(.pauseTrip(trip: id(1)))
        #expect(f.rejection(.pauseTrip(trip: id(1))) == .tripNotRunning)
        #expect(f.rejection(.startTrip(trip: id(2), list: nil)) == .tripInProgress, "a paused trip is still in progress")
        try f.run(.resumeTrip(trip: id(1)))
        try f.run(.endTrip(trip: id(1)))
        // each event is one minute apart: running 1 min, paused 1 min, running 1 min
        #expect(f.state.trips[id(1)]?.activeMilliseconds == 120_000)
        for command: Command in [.pauseTrip(trip: id(1)), .resumeTrip(trip: id(1)), .endTrip(trip: id(1))] {
            #expect(f.rejection(command) == .tripEnded)
        }
        #expect(f.rejection(.pauseTrip(trip: id(7))) == .unknownTrip)
        #expect(f.rejection(.startTrip(trip: id(1), list: nil)) == .idInUse)
        #expect(f.rejection(.startTrip(trip: id(2), list: id(8))) == .unknownList)
        #expect(try f.run(.startTrip(trip: id(2), list: nil)) == [.tripStarted(trip: id(2), list: nil)])
    }
}
