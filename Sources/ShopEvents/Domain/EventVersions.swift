/// How an event's data changes without history being rewritten
/// (docs/JOURNAL.md, "How events change").
///
/// Each type has a current version: what a writer writes. A line of an older
/// version is read into that version's own value below and upgraded to the
/// current event in memory, one function per type and version; the line in
/// the file stays as it was. A version newer than ``currentVersion`` is not
/// guessed at: the reader refuses it (`unsupported_version`).
///
/// ```swift
/// print(EventType.itemPurchased.currentVersion)     // 2
/// let old = EventV1.ItemAddedToList(list: ListID(), item: ItemID(), quantity: 2)
/// print(old.upgraded())                             // itemAddedToList(…, quantity: 2)
/// ```
extension EventType {
    /// The version a writer writes, and the newest a reader reads.
    /// Declared with the type's fields (``EventDeclaration``).
    public var currentVersion: Int { EventDeclaration.versions[ordinal] }
}

/// The version-1 data of the types that have a newer version, each with the
/// function that makes it the current event. Version 1's quantities are
/// whole numbers; version 2's are decimals with up to three fraction digits,
/// and version 2 adds an item's `unit` and `barcode` and a trip's and a
/// purchase's `store`.
///
/// ```swift
/// let old = EventV1.ListEntryQuantityChanged(list: ListID(), item: ItemID(), quantity: 3)
/// if case let .listEntryQuantityChanged(_, _, quantity) = old.upgraded() { print(quantity) }   // 3
/// ```
public enum EventV1 {
    /// `ItemCreated` v1: the details' default quantity is a whole number.
    public struct ItemCreated: Hashable, Sendable {
        public var item: ItemID, name: String, location: LocationID, details: Details
        public init(item: ItemID, name: String, location: LocationID, details: Details) {
            self.item = item; self.name = name; self.location = location; self.details = details
        }
        public func upgraded() -> Event { .itemCreated(item: item, name: name, location: location, details: details.upgraded()) }
    }

    /// `ItemDetailsChanged` v1: as `ItemCreated`'s details.
    public struct ItemDetailsChanged: Hashable, Sendable {
        public var item: ItemID, details: Details
        public init(item: ItemID, details: Details) { self.item = item; self.details = details }
        public func upgraded() -> Event { .itemDetailsChanged(item: item, details: details.upgraded()) }
    }

    /// An item's details at version 1.
    public struct Details: Hashable, Sendable {
        public var category: String?, notes: String?, unitPrice: Int?, photo: String?, quantity: Int?
        public init(category: String? = nil, notes: String? = nil, unitPrice: Int? = nil, photo: String? = nil, quantity: Int? = nil) {
            self.category = category; self.notes = notes; self.unitPrice = unitPrice; self.photo = photo; self.quantity = quantity
        }
        public func upgraded() -> ItemDetails {
            ItemDetails(category: category, notes: notes, unitPrice: unitPrice, photo: photo, quantity: quantity.map { Quantity($0) })
        }
    }

    /// `ItemAddedToList` v1: a whole quantity.
    public struct ItemAddedToList: Hashable, Sendable {
        public var list: ListID, item: ItemID, quantity: Int
        public init(list: ListID, item: ItemID, quantity: Int) { self.list = list; self.item = item; self.quantity = quantity }
        public func upgraded() -> Event { .itemAddedToList(list: list, item: item, quantity: Quantity(quantity)) }
    }

    /// `ListEntryQuantityChanged` v1: a whole quantity.
    public struct ListEntryQuantityChanged: Hashable, Sendable {
        public var list: ListID, item: ItemID, quantity: Int
        public init(list: ListID, item: ItemID, quantity: Int) { self.list = list; self.item = item; self.quantity = quantity }
        public func upgraded() -> Event { .listEntryQuantityChanged(list: list, item: item, quantity: Quantity(quantity)) }
    }

    /// `TripStarted` v1: no store.
    public struct TripStarted: Hashable, Sendable {
        public var trip: TripID, list: ListID?
        public init(trip: TripID, list: ListID?) { self.trip = trip; self.list = list }
        public func upgraded() -> Event { .tripStarted(trip: trip, list: list, store: nil) }
    }

    /// `ItemPurchased` v1: a whole quantity, no store.
    public struct ItemPurchased: Hashable, Sendable {
        public var purchase: PurchaseID, item: ItemID, list: ListID?, quantity: Int, unitPrice: Int?, location: LocationID, purchasedAt: Timestamp?
        public init(purchase: PurchaseID, item: ItemID, list: ListID?, quantity: Int, unitPrice: Int?, location: LocationID, purchasedAt: Timestamp?) {
            self.purchase = purchase; self.item = item; self.list = list; self.quantity = quantity
            self.unitPrice = unitPrice; self.location = location; self.purchasedAt = purchasedAt
        }
        public func upgraded() -> Event {
            .itemPurchased(purchase: purchase, item: item, list: list, quantity: Quantity(quantity), unitPrice: unitPrice,
                           location: location, purchasedAt: purchasedAt, store: nil)
        }
    }
}
