import Foundation
import ShopEvents

/// A hub journal and devices that clone it, sync and apply commands through
/// the built `shop-replay`, each a process of its own; and the laws of docs/SYNC.md
/// checked over their files.
public final class SyncWorld {
    public let tool = ToolRunner()
    /// The hub's journal: `hub.ndjson` in the world's folder, or a hosted hub's file of the household.
    public var hub: String
    /// What each device's apply accepted into its outbox: command id → purchase id, if it made one.
    public private(set) var acceptedLocally: [String: [(command: CommandID, purchase: PurchaseID?)]] = [:]

    public init() { hub = tool.path("hub.ndjson") }

    deinit { tool.remove() }

    public func path(_ device: String) -> String { tool.path("\(device).ndjson") }

    /// Writes the hub's journal: a household, two locations, items, a list, members.
    /// `issuer` makes the first AddMember (default: the first member, who adds itself as owner).
    public func makeHub(items: [String], onList: [String], members: [(String, Role)], issuer: String? = nil) throws -> ShopState {
        let actor = issuer ?? members.first?.0 ?? "ana"
        let journal = try Journal.create(path: hub, options: .init(clock: TestClock.stepping(), actor: actor), existing: .refuse)
        defer { journal.close() }
        try journal.execute(.createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        let dairy = LocationID()
        try journal.execute(.createLocation(location: dairy, name: "Dairy", color: nil))
        let list = ListID()
        try journal.execute(.createList(list: list, name: "Weekly", priority: nil))
        for name in items {
            let item = ItemID()
            try journal.execute(.createItem(item: item, name: name, location: dairy, details: ItemDetails(unitPrice: 199)))
            if onList.contains(name) { try journal.execute(.addItemToList(list: list, item: item, quantity: 1)) }
        }
        for (member, role) in members { try journal.execute(.addMember(member: member, role: role)) }
        return journal.state
    }

    @discardableResult
    public func clone(_ device: String, actor: String) throws -> ToolRunner.Result {
        try tool.run(["clone", "--hub", hub, "--journal", path(device), "--device", device, "--actor", actor, "--json"])
    }

    /// Applies commands on a device (its outbox); records what was accepted.
    @discardableResult
    public func apply(_ device: String, actor: String, _ lines: [String]) throws -> [[String: Any]] {
        let result = try tool.run(["apply", "--journal", path(device), "--actor", actor, "--json"], stdin: lines.joined(separator: "\n") + "\n")
        let answers = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        for answer in answers where answer["ok"] as? Bool == true {
            let command = CommandID(answer["command"] as! String)!
            let purchase = ((answer["created"] as? [String: Any])?["purchase"] as? String).flatMap(PurchaseID.init)
            acceptedLocally[device, default: []].append((command, purchase))
        }
        return answers
    }

    /// Records commands a device made through the library (``Replica``).
    public func recordAccepted(_ device: String, _ outcome: CommandOutcome) {
        let purchase = outcome.events.lazy.compactMap { recorded -> PurchaseID? in
            if case let .itemPurchased(purchase, _, _, _, _, _, _, _) = recorded.event { return purchase }
            return nil
        }.first
        acceptedLocally[device, default: []].append((outcome.command, purchase))
    }

    public func sync(_ device: String, actor: String) throws -> ToolRunner.Result {
        try tool.run(["sync", "--journal", path(device), "--actor", actor, "--json"])
    }

    /// The hub's events.
    public func hubEvents() throws -> [RecordedEvent] {
        let reader = try JournalReader(path: hub)
        var events: [RecordedEvent] = []
        while let recorded = try reader.next() { events.append(recorded) }
        return events
    }

    /// The hub's state.
    public func hubState() throws -> ShopState {
        var state = ShopState.initial
        for recorded in try hubEvents() { state.apply(recorded) }
        return state
    }

    /// What a device's `.rejected` holds.
    public func rejected(_ device: String) throws -> [RejectedCommand] { try RejectedCommand.all(journal: path(device)) }

    /// Every law of docs/SYNC.md that can be checked from the files, after
    /// every device has synced and then pulled once more. Returns what broke.
    public func brokenLaws(devices: [String]) throws -> [String] {
        var broken: [String] = []
        let hubBytes = Scratch.bytes(hub)
        for device in devices {
            if Scratch.bytes(path(device)) != hubBytes { broken.append("\(device): the replica is not byte-identical to the hub") }
            let outbox = Scratch.bytes(path(device) + ".outbox")
            if !outbox.isEmpty { broken.append("\(device): the outbox is not empty (\(outbox.count) bytes)") }
        }
        let events = try hubEvents()
        var eventsByCommand: [CommandID: Int] = [:]
        var firstSeqs: [CommandID: [Int]] = [:]
        var retryOf: [CommandID: CommandID] = [:]
        var purchases: [PurchaseID: Int] = [:]
        for recorded in events {
            eventsByCommand[recorded.command, default: 0] += 1
            firstSeqs[recorded.command, default: []].append(recorded.seq)
            if let correlation = recorded.correlation { retryOf[CommandID(correlation.uuid)] = recorded.command }
            if case let .itemPurchased(purchase, _, _, _, _, _, _, _) = recorded.event { purchases[purchase, default: 0] += 1 }
        }
        for (command, seqs) in firstSeqs where zip(seqs, seqs.dropFirst()).contains(where: { $1 != $0 + 1 }) {
            broken.append("command \(command) is in the hub more than once (seqs \(seqs))")
        }
        for (purchase, count) in purchases where count > 1 { broken.append("purchase \(purchase) is in the hub \(count) times") }
        for (device, accepted) in acceptedLocally {
            let refused = try rejected(device)
            let refusedIDs = Set(refused.compactMap(\.command.id))
            let refusedCorrelations = Set(refused.compactMap(\.command.correlation).map { CommandID($0.uuid) })
            let refusedPurchases = Set(refused.compactMap { rejection -> PurchaseID? in
                if case let .purchaseItem(purchase, _, _, _, _, _, _, _) = rejection.command.command { return purchase }
                return nil
            })
            for (command, purchase) in accepted {
                let inHub = eventsByCommand[command] != nil || retryOf[command].map { eventsByCommand[$0] != nil } == true
                let isRefused = refusedIDs.contains(command) || refusedCorrelations.contains(command)
                if inHub == isRefused {
                    broken.append("\(device): command \(command) is \(inHub ? "both in the hub and in .rejected" : "neither in the hub nor in .rejected")")
                }
                if let purchase, purchases[purchase] == nil, !refusedPurchases.contains(purchase) {
                    broken.append("\(device): purchase \(purchase) is lost: not in the hub and not in .rejected")
                }
            }
        }
        let verify = try tool.run(["verify", "--journal", hub, "--json"])
        if verify.status != 0 { broken.append("the hub's journal does not verify: \(verify.stdout) \(verify.stderr)") }
        return broken
    }
}
