import Foundation
import Testing
@testable import ShopEvents

/// Issue 50, item 3: each event type is declared once (``EventDeclaration``)
/// and the codec, the reader's key table, the versions and the verifier's
/// created ids follow it. These tests hold the hand-written parts (the
/// writer's switch, ``EventData``'s fields) to the declarations.
@Suite struct EventDeclarationTests {
    static let a = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
    static let b = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!
    static let c = UUID(uuidString: "00000000-0000-0000-0000-00000000000C")!
    static let red = Color(red: 1, green: 0, blue: 0, opacity: 1)
    static let full = ItemDetails(category: "Dairy", notes: "cold", unitPrice: 129, photo: "milk.jpg", quantity: Quantity(thousandths: 1500),
                                  unit: "l", barcode: "4006381333931")
    static let at = Timestamp("2026-03-01T09:00:00.250Z")!

    /// An event of `type` with every optional field given (`full`) or none.
    static func sample(_ type: EventType, full: Bool) -> Event {
        let (a, b, c) = (Self.a, Self.b, Self.c)
        switch type {
        case .householdCreated: return .householdCreated(household: HouseholdID(a), name: "Home", currency: "EUR", timeZone: "UTC")
        case .locationCreated: return .locationCreated(location: LocationID(a), name: "Dairy", position: 2, color: red)
        case .locationRenamed: return .locationRenamed(location: LocationID(a), name: "Fridge")
        case .locationRecolored: return .locationRecolored(location: LocationID(a), color: red)
        case .locationsReordered:
            return .locationsReordered(order: [LocationID(a), LocationID(b)], positions: full ? [3, 7] : nil, unknownAlias: full ? LocationID(c) : nil)
        case .locationDeleted: return .locationDeleted(location: LocationID(a))
        case .itemCreated: return .itemCreated(item: ItemID(a), name: "Milk", location: LocationID(b), details: full ? Self.full : ItemDetails())
        case .itemRenamed: return .itemRenamed(item: ItemID(a), name: "Oat milk")
        case .itemDetailsChanged: return .itemDetailsChanged(item: ItemID(a), details: full ? Self.full : ItemDetails())
        case .itemRelocated: return .itemRelocated(item: ItemID(a), location: LocationID(b))
        case .itemAvailabilityChanged: return .itemAvailabilityChanged(item: ItemID(a), available: false)
        case .itemDeleted: return .itemDeleted(item: ItemID(a))
        case .listCreated: return .listCreated(list: ListID(a), name: "Weekly", priority: .high)
        case .listRenamed: return .listRenamed(list: ListID(a), name: "Weekend")
        case .listPriorityChanged: return .listPriorityChanged(list: ListID(a), priority: .low)
        case .listDeleted: return .listDeleted(list: ListID(a))
        case .listRestored: return .listRestored(list: ListID(a))
        case .listPurged: return .listPurged(list: ListID(a))
        case .itemAddedToList: return .itemAddedToList(list: ListID(a), item: ItemID(b), quantity: Quantity(thousandths: 2500))
        case .listEntryQuantityChanged: return .listEntryQuantityChanged(list: ListID(a), item: ItemID(b), quantity: Quantity(3))
        case .itemRemovedFromList: return .itemRemovedFromList(list: ListID(a), item: ItemID(b))
        case .listReordered: return .listReordered(list: ListID(a), order: [ItemID(b), ItemID(c)])
        case .listEntryAssigned: return .listEntryAssigned(list: ListID(a), item: ItemID(b), member: full ? "ben" : nil)
        case .itemPurchased:
            return .itemPurchased(purchase: PurchaseID(a), item: ItemID(b), list: full ? ListID(c) : nil, quantity: Quantity(2),
                                  unitPrice: full ? 249 : nil, location: LocationID(c), purchasedAt: full ? Self.at : nil, store: full ? StoreID(b) : nil)
        case .purchaseReverted: return .purchaseReverted(purchase: PurchaseID(a))
        case .boughtEntriesCleared: return .boughtEntriesCleared(list: ListID(a))
        case .tripStarted: return .tripStarted(trip: TripID(a), list: full ? ListID(b) : nil, store: full ? StoreID(c) : nil)
        case .tripPaused: return .tripPaused(trip: TripID(a))
        case .tripResumed: return .tripResumed(trip: TripID(a))
        case .tripEnded: return .tripEnded(trip: TripID(a))
        case .memberAdded: return .memberAdded(member: "ben", role: .member)
        case .memberRoleChanged: return .memberRoleChanged(member: "ben", role: .viewer)
        case .memberRemoved: return .memberRemoved(member: "ben")
        case .storeCreated: return .storeCreated(store: StoreID(a), name: "Corner shop")
        case .storeRenamed: return .storeRenamed(store: StoreID(a), name: "Market")
        case .storeDeleted: return .storeDeleted(store: StoreID(a))
        case .storeLocationsReordered: return .storeLocationsReordered(store: StoreID(a), order: full ? [LocationID(b), LocationID(c)] : [])
        }
    }

    /// The keys of an event's written `data`, in order.
    static func writtenKeys(_ event: Event) throws -> [String] {
        var w = JSONWriter()
        EventLineCodec.writeData(event, to: &w)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String: Any])
        let text = String(decoding: w.bytes, as: UTF8.self)
        // In the order written: each key's place in the text.
        return object.keys.sorted { try! #require(text.range(of: "\"\($0)\":")).lowerBound < (try! #require(text.range(of: "\"\($1)\":"))).lowerBound }
    }

    @Test func theOrdinalIsThePlaceInAllCases() {
        #expect(EventType.allCases.map(\.ordinal) == Array(EventType.allCases.indices))
        #expect(EventDeclaration.all.map(\.type) == EventType.allCases)
    }

    @Test func theWriterWritesEveryDeclaredFieldInOrderAndNoOther() throws {
        for type in EventType.allCases {
            let declared = type.declaration.fields
            #expect(try Self.writtenKeys(Self.sample(type, full: true)) == declared.map(\.key), "\(type)")
            #expect(try Self.writtenKeys(Self.sample(type, full: false)) == declared.filter { !$0.isOptional }.map(\.key), "\(type)")
        }
    }

    /// Every key read back as written, at the current version; at version 1, a field a later version added is not read.
    @Test func theReaderReadsEveryDeclaredField() throws {
        for type in EventType.allCases {
            for full in [true, false] {
                let event = Self.sample(type, full: full)
                var w = JSONWriter()
                EventLineCodec.writeData(event, to: &w)
                let read = try w.bytes.withUnsafeBytes { raw in
                    try Result { () throws(CodecError) in
                        var s = JSONScanner(raw)
                        return try EventData(&s).event(type)
                    }.get()
                }
                #expect(read == event, "\(type)")
            }
        }
    }

    @Test func theKeyTableHoldsEveryDeclaredKeyAndEachFieldIsDeclared() throws {
        let table = EventData.keysByLength.enumerated().flatMap { length, entries in
            entries.map { entry in (String(decoding: entry.bytes, as: UTF8.self), "\(entry.field)", length) }
        }
        #expect(table.map(\.0).sorted() == EventDeclaration.allKeys.sorted())
        #expect(table.allSatisfy { $0.0 == $0.1 && $0.0.utf8.count == $0.2 })
        #expect(Set(EventData.Field.allCases.map { "\($0)" }) == Set(EventDeclaration.allKeys))
    }

    @Test func versionsAreDeclared() {
        let twos: [EventType] = [.itemCreated, .itemDetailsChanged, .itemAddedToList, .listEntryQuantityChanged, .itemPurchased, .tripStarted]
        #expect(EventType.allCases.filter { $0.currentVersion == 2 } == twos)
        #expect(EventType.allCases.allSatisfy { $0.currentVersion == $0.declaration.version })
        #expect(EventType.itemPurchased.declaration.fields(at: 1).map(\.key)
                == ["purchase", "item", "list", "quantity", "unitPrice", "location", "purchasedAt"])
        #expect(EventType.itemCreated.declaration.fields(at: 2).count == 10)
        #expect(EventType.itemCreated.declaration.fields(at: 1).count == 8)
    }

    /// The verifier's new ids and an outcome's created ids: the declared fields' values, for every type.
    @Test func createdAndNewIDsAreTheDeclaredFields() {
        let created: [EventType: String] = [.householdCreated: "household", .locationCreated: "location", .itemCreated: "item", .listCreated: "list",
                                            .itemPurchased: "purchase", .tripStarted: "trip", .storeCreated: "store"]
        for type in EventType.allCases {
            let event = Self.sample(type, full: true)
            #expect(event.created?.kind == created[type], "\(type)")
            #expect(event.created.map { $0.id == Self.a } ?? true, "\(type)")
            #expect(event.newID == (type == .locationsReordered ? Self.c : created[type] == nil ? nil : Self.a), "\(type)")
        }
        #expect(Self.sample(.locationsReordered, full: false).newID == nil)
    }

    /// A state whose item has every detail round-trips through the snapshot, which writes the details through the journal's field list.
    @Test func theSnapshotKeepsEveryDetail() throws {
        var state = ShopState()
        for (seq, event) in [Self.sample(.householdCreated, full: true),
                             .locationCreated(location: LocationID(Self.b), name: "Dairy", position: 1, color: Self.red),
                             Self.sample(.itemCreated, full: true)].enumerated() {
            state = ShopState.evolve(state, event, EventContext(seq: seq + 1, at: Self.at, actor: "ana"))
        }
        var w = BinaryWriter()
        state.encode(to: &w)
        var r = BinaryReader(w.bytes)
        let back = try ShopState(from: &r)
        #expect(back.items[ItemID(Self.a)]?.details == Self.full)
        #expect(back == state)
    }
}
