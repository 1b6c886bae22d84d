import Foundation
import ShopEvents
import ShopProjections

struct History: ToolCommand {
    static let name = "history"
    static let summary = "every event that touched an item, a list, a location or a store, or by or about a member"
    static let help = """
    Usage: shop-replay history (--item | --list | --location | --store) ID|NAME [--journal PATH] [--json]
           shop-replay history --member NAME [--journal PATH] [--json]

    Lists every event that touched the thing, in journal order: its creation,
    renames, moves, list entries, purchases and reverts, deletion. Names are
    matched ignoring case; a deleted thing can be named by its last name or id,
    and so can a purged list. A store's history: the events that name it, its
    trips' events, the purchases there and their reverts.
    For a member: every event that actor issued, and every event about it
    (added, role changed, removed); the name is compared exactly.

    Options:
      --item ID|NAME
      --list ID|NAME
      --location ID|NAME
      --store ID|NAME
      --member NAME
    \(JournalOptions.help)
    """

    enum Target {
        case item(String), list(String), location(String), store(String), member(String)
    }

    var target: Target
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        let given = [try arguments.option("--item", "ID|NAME").map(Target.item),
                     try arguments.option("--list", "ID|NAME").map(Target.list),
                     try arguments.option("--location", "ID|NAME").map(Target.location),
                     try arguments.option("--store", "ID|NAME").map(Target.store),
                     try arguments.option("--member", "NAME").map(Target.member)].compactMap { $0 }
        guard given.count == 1 else {
            throw UsageError(message: "give exactly one of --item, --list, --location, --store or --member")
        }
        target = given[0]
    }


    func run() throws -> Int32 {
        let events = try JournalReader.readAll(path: options.journal)
        var final = ShopState.compact
        for recorded in events { final.apply(recorded) }
        let resolved: EventHistory.Subject
        let kind: String, id: String, name: String
        switch target {
        case let .item(text):
            let found = try Lookup.item(text, in: final)
            // Each lookup found its id in `final`, which keeps deleted ones too.
            resolved = .item(found); (kind, id, name) = ("item", found.description, final.items[found]!.name)
        case let .list(text):
            let found: ListID, listName: String
            do throws(RuleViolation) {
                found = try final.find(list: text, in: .includingDeleted)
                listName = final.lists[found]!.name   // found in `final`, as above
            } catch where error.reason == .unknownList {
                // A purged list is gone from the state; its events are still in the journal.
                guard let purged = Self.purgedList(text, in: events, purged: final.purgedLists) else { throw UsageError(message: error.message) }
                (found, listName) = purged
            } catch {
                throw UsageError(message: error.message)   // several deleted lists of that name
            }
            resolved = .list(found); (kind, id, name) = ("list", found.description, listName)
        case let .location(text):
            let found = try Lookup.location(text, in: final)
            resolved = .location(found); (kind, id, name) = ("location", found.description, final.locations[found]!.name)   // as above
        case let .store(text):
            let found = try Lookup.store(text, in: final)
            resolved = .store(found); (kind, id, name) = ("store", found.description, final.stores[found]?.name ?? text)
        case let .member(text):
            guard events.contains(where: { $0.actor == text || EventHistory.isAbout($0.event, member: text) }) else {
                throw UsageError(message: "no event was issued by or is about \"\(text)\"")
            }
            resolved = .member(text); (kind, id, name) = ("member", text, text)
        }
        var state = ShopState.initial
        var rows = PurchaseRows()
        let calendar = householdCalendar(journal: options.journal)
        var touching: [(RecordedEvent, String)] = []
        var scan = EventHistory.Scan(resolved)
        for recorded in events {
            if scan.touches(recorded, before: state, rows: rows) {
                touching.append((recorded, Limits.visible(EventSummary.describe(recorded.event, in: state, rows: rows, calendar: calendar))))
            }
            rows.apply(recorded, before: state)
            state.apply(recorded)
        }
        let out = Output(json: options.json)
        if options.json {
            out.emit(.object([
                ("history", .object([("kind", .string(kind)), ("id", .string(id)), ("name", .string(name))])),
                // Each line as written (an older version's line is not shown upgraded: its bytes are what the chain covers).
                ("events", .array(try Self.lines(Set(touching.map(\.0.seq)), of: options.journal).map { try JSONValue.parse($0) })),
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

    /// A purged list, by its id or by its last name ignoring case (the lowest id
    /// when several purged lists had it), with that name: from the events, the state keeps none.
    static func purgedList(_ text: String, in events: [RecordedEvent], purged: Set<ListID>) -> (ListID, String)? {
        guard !purged.isEmpty else { return nil }
        var names: [ListID: String] = [:]
        for recorded in events {
            switch recorded.event {
            case let .listCreated(list, name, _), let .listRenamed(list, name): if purged.contains(list) { names[list] = name }
            default: break
            }
        }
        if let id = ListID(text) { return names[id].map { (id, $0) } }
        let key = text.trimmingCharacters(in: .whitespaces).lowercased()
        return names.filter { $0.value.lowercased() == key }.min { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The bytes of the lines numbered `seqs` (1-based), in order, without their newlines.
    static func lines(_ seqs: Set<Int>, of path: String) throws -> [[UInt8]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        var found: [[UInt8]] = []
        var seq = 1, start = data.startIndex
        while found.count < seqs.count, start < data.endIndex, let end = data[start...].firstIndex(of: 0x0A) {
            if seqs.contains(seq) { found.append(Array(data[start..<end])) }
            seq += 1
            start = end + 1
        }
        return found
    }
}
