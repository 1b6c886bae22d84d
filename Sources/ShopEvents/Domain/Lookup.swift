import Foundation

/// Finding a thing by what a person types: its id, or its name ignoring
/// case and surrounding white space — one rule for the tool, an app and
/// `apply`'s references by name.
///
/// A command's reference (``Scope/live``) names a live thing: a name no live
/// thing has is refused like an unknown id. A question about the past
/// (``Scope/includingDeleted``: a history, an audit filter) may name a
/// deleted thing too, by id or by its last name; a live thing of that name
/// comes first, and two deleted ones of that name (none live) are
/// `ambiguous_name`, listing their ids.
///
/// ```swift
/// let milk = try state.find(item: "milk")                                  // the live Milk
/// let gone = try state.find(list: "Party", in: .includingDeleted)          // a deleted list, by its last name
/// ```
extension ShopState {
    /// Which things a lookup may find.
    public enum Scope: Sendable {
        case live, includingDeleted
    }

    /// The item `text` names (its id, a live item's name, or a live item's barcode); `unknown_item` if none.
    public func find(item text: String, in scope: Scope = .live) throws(RuleViolation) -> ItemID {
        // A live item's barcode names it too, unless a live item has those digits as its name.
        let digits = ShopState.trimmed(text)
        if liveItem(named: digits) == nil, Barcode.isValid(digits), let item = liveItem(barcode: digits) { return item }
        return try Self.find(text, "item", .unknownItem, in: scope, all: items.values.map { ($0.id, $0.name, $0.isDeleted) },
                      known: { items[$0] }, isDeleted: { $0.isDeleted }, live: liveItem(named:), hint: "")
    }

    /// The list `text` names; `unknown_list`, naming the live lists, if none.
    public func find(list text: String, in scope: Scope = .live) throws(RuleViolation) -> ListID {
        let names = lists.values.filter { !$0.isDeleted }.map(\.name).sorted()
        return try Self.find(text, "list", .unknownList, in: scope, all: lists.values.map { ($0.id, $0.name, $0.isDeleted) },
                             known: { lists[$0] }, isDeleted: { $0.isDeleted }, live: liveList(named:),
                             hint: names.isEmpty ? "" : "; the lists are \(names.joined(separator: ", "))")
    }

    /// The list a `RestoreList` or `PurgeList` names: an id as it is (the
    /// rules say whether that list is deleted), else the deleted list whose
    /// last name is `text` (ignoring case); with none, the live list of that
    /// name (which the rules refuse, `list_not_deleted`, as they refuse its
    /// id). `unknown_list` if no list has the name; `ambiguous_name`, listing
    /// the ids, if two deleted lists share it.
    ///
    /// ```swift
    /// let party = try state.find(deletedList: "Party")   // the deleted Party, though a live list is called Party too
    /// ```
    public func find(deletedList text: String) throws(RuleViolation) -> ListID {
        if let id = ListID(text) { return id }
        let deleted = try Self.deletedOne(named: text, "list", all: lists.values.map { ($0.id, $0.name, $0.isDeleted) })
        if let id = deleted ?? liveList(named: text) { return id }
        let names = Set(lists.values.filter(\.isDeleted).map(\.name)).sorted()
        throw RuleViolation(.unknownList, "there is no list named \(Self.quoted(text))\(names.isEmpty ? "; no list is deleted" : "; the deleted lists are \(names.joined(separator: ", "))")", field: "list")
    }

    /// The store `text` names; `unknown_store`, naming the live stores, if none.
    public func find(store text: String, in scope: Scope = .live) throws(RuleViolation) -> StoreID {
        let names = stores.values.filter { !$0.isDeleted }.map(\.name).sorted()
        return try Self.find(text, "store", .unknownStore, in: scope, all: stores.values.map { ($0.id, $0.name, $0.isDeleted) },
                             known: { stores[$0] }, isDeleted: { $0.isDeleted }, live: { storeNames.owner(of: $0) },
                             hint: names.isEmpty ? "" : "; the stores are \(names.joined(separator: ", "))")
    }

    /// The location `text` names; `unknown_location`, naming the live locations, if none.
    public func find(location text: String, in scope: Scope = .live) throws(RuleViolation) -> LocationID {
        try Self.find(text, "location", .unknownLocation, in: scope, all: locations.values.map { ($0.id, $0.name, $0.isDeleted) },
                      known: { locations[$0] }, isDeleted: { $0.isDeleted }, live: liveLocation(named:),
                      hint: "; the locations are \(visitingOrder.compactMap { locations[$0]?.name }.joined(separator: ", "))")
    }

    private static func find<Kind, Thing>(_ text: String, _ noun: String, _ code: RuleViolation.Reason, in scope: Scope,
                                          all: @autoclosure () -> [(EntityID<Kind>, String, Bool)],
                                          known: (EntityID<Kind>) -> Thing?, isDeleted: (Thing) -> Bool,
                                          live: (String) -> EntityID<Kind>?, hint: String) throws(RuleViolation) -> EntityID<Kind> {
        if let id = EntityID<Kind>(text) {
            guard let thing = known(id), scope == .includingDeleted || !isDeleted(thing) else {
                throw RuleViolation(code, "there is no \(scope == .live ? "live " : "")\(noun) with id \(id)", field: noun)
            }
            return id
        }
        if let id = live(text) { return id }
        // No live one of that name: the deleted one, if only one had it (as `find(deletedList:)`).
        if scope == .includingDeleted, let id = try deletedOne(named: text, noun, all: all()) { return id }
        throw RuleViolation(code, "there is no \(scope == .live ? "live " : "")\(noun) named \(quoted(text))\(hint)", field: noun)
    }

    /// The deleted thing named `text` (ignoring case) among `all` (id, name, deleted); nil if none;
    /// `ambiguous_name`, listing the ids, if several share the name.
    private static func deletedOne<Kind>(named text: String, _ noun: String,
                                         all: [(EntityID<Kind>, String, Bool)]) throws(RuleViolation) -> EntityID<Kind>? {
        let key = trimmed(text).lowercased()
        let deleted = all.filter { $0.2 && $0.1.lowercased() == key }.map(\.0).sorted()
        if deleted.count > 1 {
            throw RuleViolation(.ambiguousName, "\(deleted.count) deleted \(noun)s are named \(quoted(text)): \(deleted.map(\.description).joined(separator: ", ")); give the id of the one meant", field: noun)
        }
        return deleted.first
    }
}
