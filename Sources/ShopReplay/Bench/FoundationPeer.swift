import Foundation
import ShopEvents

/// The benchmark's peer: the same journal lines decoded into the same event
/// types with Foundation's `JSONDecoder`, the way an app would do it without
/// our codec.
struct FoundationLine: Decodable {
    var recorded: RecordedEvent

    enum Keys: String, CodingKey { case seq, id, type, v, at, actor, device, command, correlation, data, prev }

    enum DataKeys: String, CodingKey {
        case household, name, currency, timeZone, location, position, color, order, item, category, notes, unitPrice, photo
        case available, list, priority, quantity, purchase, purchasedAt, trip, member, role, store
    }

    struct DecodedColor: Decodable {
        var red: Double, green: Double, blue: Double, opacity: Double
        var color: Color { Color(red: red, green: green, blue: blue, opacity: opacity) }
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        func time(_ text: String) throws -> Timestamp {
            guard let t = Timestamp(text) else { throw DecodingError.dataCorruptedError(forKey: .at, in: c, debugDescription: "time") }
            return t
        }
        let typeName = try c.decode(String.self, forKey: .type)
        guard let type = EventType(rawValue: typeName) else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown type")
        }
        let d = try c.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        let event = try Self.event(type, from: d, time: time)
        guard let prev = SHA256Digest(hex: try c.decode(String.self, forKey: .prev)) else {
            throw DecodingError.dataCorruptedError(forKey: .prev, in: c, debugDescription: "prev")
        }
        recorded = RecordedEvent(seq: try c.decode(Int.self, forKey: .seq), id: EventID(try c.decode(UUID.self, forKey: .id)),
                                 at: try time(try c.decode(String.self, forKey: .at)), actor: try c.decode(String.self, forKey: .actor),
                                 device: try c.decodeIfPresent(String.self, forKey: .device), command: CommandID(try c.decode(UUID.self, forKey: .command)),
                                 correlation: try c.decodeIfPresent(UUID.self, forKey: .correlation).map(CorrelationID.init),
                                 event: event, prev: prev)
    }

    /// The event of `type` from the line's `data` (`time` reads a timestamp).
    private static func event(_ type: EventType, from d: KeyedDecodingContainer<DataKeys>,
                              time: (String) throws -> Timestamp) throws -> Event {
        func id<K>(_ key: DataKeys) throws -> EntityID<K> { EntityID(try d.decode(UUID.self, forKey: key)) }
        func optionalID<K>(_ key: DataKeys) throws -> EntityID<K>? { try d.decodeIfPresent(UUID.self, forKey: key).map(EntityID.init) }
        func details() throws -> ItemDetails {
            ItemDetails(category: try d.decodeIfPresent(String.self, forKey: .category), notes: try d.decodeIfPresent(String.self, forKey: .notes),
                        unitPrice: try d.decodeIfPresent(Int.self, forKey: .unitPrice), photo: try d.decodeIfPresent(String.self, forKey: .photo))
        }
        func priority() throws -> Priority {
            guard let p = Priority(rawValue: try d.decode(String.self, forKey: .priority)) else {
                throw DecodingError.dataCorruptedError(forKey: .priority, in: d, debugDescription: "priority")
            }
            return p
        }
        let event: Event
        switch type {
        case .householdCreated:
            event = .householdCreated(household: try id(.household), name: try d.decode(String.self, forKey: .name),
                                      currency: try d.decode(String.self, forKey: .currency), timeZone: try d.decode(String.self, forKey: .timeZone))
        case .locationCreated:
            event = .locationCreated(location: try id(.location), name: try d.decode(String.self, forKey: .name),
                                     position: try d.decode(Int.self, forKey: .position), color: try d.decode(DecodedColor.self, forKey: .color).color)
        case .locationRenamed: event = .locationRenamed(location: try id(.location), name: try d.decode(String.self, forKey: .name))
        case .locationRecolored: event = .locationRecolored(location: try id(.location), color: try d.decode(DecodedColor.self, forKey: .color).color)
        case .locationsReordered: event = .locationsReordered(order: try d.decode([UUID].self, forKey: .order).map(LocationID.init))
        case .locationDeleted: event = .locationDeleted(location: try id(.location))
        case .itemCreated:
            event = .itemCreated(item: try id(.item), name: try d.decode(String.self, forKey: .name), location: try id(.location), details: try details())
        case .itemRenamed: event = .itemRenamed(item: try id(.item), name: try d.decode(String.self, forKey: .name))
        case .itemDetailsChanged: event = .itemDetailsChanged(item: try id(.item), details: try details())
        case .itemRelocated: event = .itemRelocated(item: try id(.item), location: try id(.location))
        case .itemAvailabilityChanged: event = .itemAvailabilityChanged(item: try id(.item), available: try d.decode(Bool.self, forKey: .available))
        case .itemDeleted: event = .itemDeleted(item: try id(.item))
        case .listCreated: event = .listCreated(list: try id(.list), name: try d.decode(String.self, forKey: .name), priority: try priority())
        case .listRenamed: event = .listRenamed(list: try id(.list), name: try d.decode(String.self, forKey: .name))
        case .listPriorityChanged: event = .listPriorityChanged(list: try id(.list), priority: try priority())
        case .listDeleted: event = .listDeleted(list: try id(.list))
        case .listRestored: event = .listRestored(list: try id(.list))
        case .listPurged: event = .listPurged(list: try id(.list))
        case .itemAddedToList:
            event = .itemAddedToList(list: try id(.list), item: try id(.item), quantity: try d.decode(Quantity.self, forKey: .quantity))
        case .listEntryQuantityChanged:
            event = .listEntryQuantityChanged(list: try id(.list), item: try id(.item), quantity: try d.decode(Quantity.self, forKey: .quantity))
        case .itemRemovedFromList: event = .itemRemovedFromList(list: try id(.list), item: try id(.item))
        case .listReordered: event = .listReordered(list: try id(.list), order: try d.decode([UUID].self, forKey: .order).map(ItemID.init))
        case .itemPurchased:
            event = .itemPurchased(purchase: try id(.purchase), item: try id(.item), list: try optionalID(.list),
                                   quantity: try d.decode(Quantity.self, forKey: .quantity), unitPrice: try d.decodeIfPresent(Int.self, forKey: .unitPrice),
                                   location: try id(.location), purchasedAt: try d.decodeIfPresent(String.self, forKey: .purchasedAt).map(time),
                                   store: try optionalID(.store))
        case .purchaseReverted: event = .purchaseReverted(purchase: try id(.purchase))
        case .boughtEntriesCleared: event = .boughtEntriesCleared(list: try id(.list))
        case .tripStarted: event = .tripStarted(trip: try id(.trip), list: try optionalID(.list), store: try optionalID(.store))
        case .tripPaused: event = .tripPaused(trip: try id(.trip))
        case .tripResumed: event = .tripResumed(trip: try id(.trip))
        case .tripEnded: event = .tripEnded(trip: try id(.trip))
        case .memberAdded, .memberRoleChanged:
            guard let role = Role(rawValue: try d.decode(String.self, forKey: .role)) else {
                throw DecodingError.dataCorruptedError(forKey: .role, in: d, debugDescription: "role")
            }
            let member = try d.decode(String.self, forKey: .member)
            event = type == .memberAdded ? .memberAdded(member: member, role: role) : .memberRoleChanged(member: member, role: role)
        case .memberRemoved: event = .memberRemoved(member: try d.decode(String.self, forKey: .member))
        case .listEntryAssigned:
            event = .listEntryAssigned(list: try id(.list), item: try id(.item), member: try d.decodeIfPresent(String.self, forKey: .member))
        case .storeCreated: event = .storeCreated(store: try id(.store), name: try d.decode(String.self, forKey: .name))
        case .storeRenamed: event = .storeRenamed(store: try id(.store), name: try d.decode(String.self, forKey: .name))
        case .storeDeleted: event = .storeDeleted(store: try id(.store))
        }
        return event
    }
}
