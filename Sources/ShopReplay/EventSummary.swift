import Foundation
import ShopEvents
import ShopProjections

/// One line about an event for people, with names looked up in the state just
/// before it (and a reverted purchase's `seq` in the rows folded beside it).
enum EventSummary {
    static func describe(_ event: Event, in state: ShopState, rows: PurchaseRows, calendar: HouseholdCalendar) -> String {
        func item(_ id: ItemID) -> String { state.items[id]?.name ?? id.description }
        func list(_ id: ListID) -> String { state.lists[id]?.name ?? id.description }
        func location(_ id: LocationID) -> String { state.locations[id]?.name ?? id.description }
        func store(_ id: StoreID) -> String { state.stores[id]?.name ?? id.description }
        func named(_ key: String, _ id: UUID) -> String? {
            switch key {
            case "item": item(ItemID(id))
            case "list": list(ListID(id))
            case "location": location(LocationID(id))
            case "store": store(StoreID(id))
            default: nil
            }
        }
        switch event {
        case let .householdCreated(_, name, currency, timeZone): return "\(name) (\(currency), \(timeZone))"
        case let .locationCreated(_, name, position, _): return "\(name) at position \(position)"
        case let .locationRenamed(id, name): return "\(location(id)) → \(name)"
        case let .locationsReordered(order, positions, _):
            return positions.map { numbers in zip(order, numbers).map { "\($1) \(location($0))" } }?.joined(separator: ", ") ?? order.map(location).joined(separator: ", ")
        case let .itemCreated(_, name, at, details):
            return "\(name) at \(location(at))" + (details.unitPrice.map { " for \(Format.money($0))" } ?? "")
        case let .itemRenamed(id, name): return "\(item(id)) → \(name)"
        case let .itemDetailsChanged(id, details): return "\(item(id)): price \(Format.money(details.unitPrice))"
        case let .itemRelocated(id, to): return "\(item(id)): \(state.items[id].map { location($0.location) } ?? "?") → \(location(to))"
        case let .itemAvailabilityChanged(id, available): return "\(item(id)) \(available ? "available again" : "out of stock")"
        case let .listCreated(_, name, priority): return "\(name) (\(priority.rawValue))"
        case let .listRenamed(id, name): return "\(list(id)) → \(name)"
        case let .listPriorityChanged(id, priority): return "\(list(id)): \(priority.rawValue)"
        case let .itemAddedToList(l, i, quantity): return "\(item(i)) ×\(quantity) on \(list(l))"
        case let .listEntryQuantityChanged(l, i, quantity): return "\(item(i)) ×\(quantity) on \(list(l))"
        case let .itemRemovedFromList(l, i): return "\(item(i)) off \(list(l))"
        case let .listEntryAssigned(l, i, member): return "\(item(i)) on \(list(l)) for \(member ?? "nobody")"
        case let .listReordered(l, order): return "\(list(l)): \(order.map(item).joined(separator: ", "))"
        case let .itemPurchased(purchase, i, l, quantity, price, at, purchasedAt, s):
            return "purchase \(Format.short(purchase)): \(item(i)) ×\(quantity)" + (price.map { " at \(Format.money($0))" } ?? "") + " in \(location(at))"
                + (s.map { " at \(store($0))" } ?? "")
                + (l.map { " from \(list($0))" } ?? "") + (purchasedAt.map { " on \(Format.time($0, calendar))" } ?? "")
        case let .purchaseReverted(id):
            return rows.purchase(id, in: state.purchases).map { "purchase \(Format.short(id)) of \(item($0.item)) (seq \($0.seq))" } ?? id.description
        case let .tripStarted(_, l, s): return [l.map { "for \(list($0))" }, s.map { "at \(store($0))" }].compactMap { $0 }.joined(separator: " ")
        case let .storeCreated(_, name): return name
        case let .storeRenamed(s, name): return "\(store(s)) → \(name)"
        case let .storeLocationsReordered(s, order):
            return "\(store(s)): " + (order.isEmpty ? "the household's order" : order.map(location).joined(separator: ", "))
        case let .memberAdded(member, role), let .memberRoleChanged(member, role): return "\(member) as \(role.rawValue)"
        case let .memberRemoved(member): return member
        default:
            // The names of the things the event's data names (a deleted list's, a recolored place's; none for a trip).
            return event.ids.compactMap { named($0.key, $0.id) }.joined(separator: ", ")
        }
    }
}
