import Foundation
import ShopEvents

struct History: ToolCommand {
    static let name = "history"
    static let summary = "every event that touched an item, a list or a location, or by or about a member"
    static let help = """
    Usage: shop-replay history (--item | --list | --location) ID|NAME [--journal PATH] [--json]
           shop-replay history --member NAME [--journal PATH] [--json]

    Lists every event that touched the thing, in journal order: its creation,
    renames, moves, list entries, purchases and reverts, deletion. Names are
    matched ignoring case; a deleted thing can be named by its last name or id.
    For a member: every event that actor issued, and every event about it
    (added, role changed, removed); the name is compared exactly.

    Options:
      --item ID|NAME
      --list ID|NAME
      --location ID|NAME
      --member NAME
    \(JournalOptions.help)
    """

    enum Target {
        case item(String), list(String), location(String), member(String)
    }

    var target: Target
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        let given = [try arguments.option("--item", "ID|NAME").map(Target.item),
                     try arguments.option("--list", "ID|NAME").map(Target.list),
                     try arguments.option("--location", "ID|NAME").map(Target.location),
                     try arguments.option("--member", "NAME").map(Target.member)].compactMap { $0 }
        guard given.count == 1 else {
            throw UsageError(message: "give exactly one of --item, --list, --location or --member")
        }
        target = given[0]
    }

    enum Resolved {
        case item(ItemID), list(ListID), location(LocationID), member(String)
    }

    func run() throws -> Int32 {
        let events = try JournalReader.readAll(path: options.journal)
        var final = ShopState.initial
        for recorded in events { final.apply(recorded) }
        let resolved: Resolved
        let kind: String, id: String, name: String
        switch target {
        case let .item(text):
            let found = try Lookup.item(text, in: final)
            resolved = .item(found); (kind, id, name) = ("item", found.description, final.items[found]!.name)
        case let .list(text):
            let found = try Lookup.list(text, in: final)
            resolved = .list(found); (kind, id, name) = ("list", found.description, final.lists[found]!.name)
        case let .location(text):
            let found = try Lookup.location(text, in: final)
            resolved = .location(found); (kind, id, name) = ("location", found.description, final.locations[found]!.name)
        case let .member(text):
            guard events.contains(where: { $0.actor == text || Self.isAbout($0.event, member: text) }) else {
                throw UsageError(message: "no event was issued by or is about \"\(text)\"")
            }
            resolved = .member(text); (kind, id, name) = ("member", text, text)
        }
        var state = ShopState.initial
        let calendar = householdCalendar(journal: options.journal)
        var touching: [(RecordedEvent, String)] = []
        for recorded in events {
            if Self.touches(recorded, resolved, before: state) {
                touching.append((recorded, Limits.visible(EventSummary.describe(recorded.event, in: state, calendar: calendar))))
            }
            state.apply(recorded)
        }
        let out = Output(json: options.json)
        if options.json {
            out.emit(.object([
                ("history", .object([("kind", .string(kind)), ("id", .string(id)), ("name", .string(name))])),
                ("events", .array(try touching.map { try JSONValue.parse(EventLineCodec.encode($0.0)) })),
            ]))
        } else {
            var table = Table(["seq", "at", "actor", "event", ""], rightAligned: [0])
            for (recorded, summary) in touching {
                table.add(["\(recorded.seq)", Format.time(recorded.at, calendar), recorded.actor, recorded.event.typeName, summary])
            }
            out.line("History of \(kind) \(Limits.visible(name)) (\(id)): \(Format.count(touching.count, "event"))\n")
            out.line(table.render())
        }
        return 0
    }

    static func touches(_ recorded: RecordedEvent, _ target: Resolved, before state: ShopState) -> Bool {
        switch target {
        case let .item(item): return touches(recorded.event, item: item, state)
        case let .list(list): return touches(recorded.event, list: list, state)
        case let .location(location): return touches(recorded.event, location: location, state)
        case let .member(name): return recorded.actor == name || isAbout(recorded.event, member: name)
        }
    }

    static func isAbout(_ event: Event, member name: String) -> Bool {
        switch event {
        case let .memberAdded(member, _), let .memberRoleChanged(member, _), let .memberRemoved(member): return member == name
        case .householdCreated, .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted,
             .itemCreated, .itemRenamed, .itemDetailsChanged, .itemRelocated, .itemAvailabilityChanged, .itemDeleted,
             .listCreated, .listRenamed, .listPriorityChanged, .listDeleted, .listRestored, .listPurged, .itemAddedToList,
             .listEntryQuantityChanged, .itemRemovedFromList, .listReordered, .itemPurchased, .purchaseReverted,
             .boughtEntriesCleared, .tripStarted, .tripPaused, .tripResumed, .tripEnded:
            return false
        }
    }

    static func touches(_ event: Event, item: ItemID, _ state: ShopState) -> Bool {
        switch event {
        case let .itemCreated(id, _, _, _), let .itemRenamed(id, _), let .itemDetailsChanged(id, _), let .itemRelocated(id, _),
             let .itemAvailabilityChanged(id, _), let .itemDeleted(id), let .itemAddedToList(_, id, _),
             let .listEntryQuantityChanged(_, id, _), let .itemRemovedFromList(_, id), let .itemPurchased(_, id, _, _, _, _, _):
            return id == item
        case let .listReordered(_, order): return order.contains(item)
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.item == item
        case let .boughtEntriesCleared(list): return state.lists[list]?.entry(for: item)?.isBought == true
        case .householdCreated, .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted,
             .listCreated, .listRenamed, .listPriorityChanged, .listDeleted, .listRestored, .listPurged,
             .tripStarted, .tripPaused, .tripResumed, .tripEnded, .memberAdded, .memberRoleChanged, .memberRemoved:
            return false
        }
    }

    static func touches(_ event: Event, list: ListID, _ state: ShopState) -> Bool {
        switch event {
        case let .listCreated(id, _, _), let .listRenamed(id, _), let .listPriorityChanged(id, _), let .listDeleted(id),
             let .listRestored(id), let .listPurged(id), let .itemAddedToList(id, _, _), let .listEntryQuantityChanged(id, _, _),
             let .itemRemovedFromList(id, _), let .listReordered(id, _), let .boughtEntriesCleared(id):
            return id == list
        case let .itemPurchased(_, _, id, _, _, _, _), let .tripStarted(_, id): return id == list
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.list == list
        case let .tripPaused(trip), let .tripResumed(trip), let .tripEnded(trip): return state.trips[trip]?.list == list
        case .householdCreated, .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted,
             .itemCreated, .itemRenamed, .itemDetailsChanged, .itemRelocated, .itemAvailabilityChanged, .itemDeleted,
             .memberAdded, .memberRoleChanged, .memberRemoved:
            return false
        }
    }

    static func touches(_ event: Event, location: LocationID, _ state: ShopState) -> Bool {
        switch event {
        case let .locationCreated(id, _, _, _), let .locationRenamed(id, _), let .locationRecolored(id, _), let .locationDeleted(id),
             let .itemCreated(_, _, id, _), let .itemPurchased(_, _, _, _, _, id, _):
            return id == location
        case .householdCreated:
            return location == .unknown
        case let .locationsReordered(order, _, _): return order.contains(location)
        case let .itemRelocated(item, to): return to == location || state.items[item]?.location == location
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.location == location
        case .itemRenamed, .itemDetailsChanged, .itemAvailabilityChanged, .itemDeleted, .listCreated, .listRenamed,
             .listPriorityChanged, .listDeleted, .listRestored, .listPurged, .itemAddedToList, .listEntryQuantityChanged,
             .itemRemovedFromList, .listReordered, .boughtEntriesCleared, .tripStarted, .tripPaused, .tripResumed, .tripEnded,
             .memberAdded, .memberRoleChanged, .memberRemoved:
            return false
        }
    }
}
