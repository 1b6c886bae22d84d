import Foundation
import ShopEvents

/// Two phones, one hub, one conflict: what sync does, in a few lines.
struct SyncDemo: ToolCommand {
    static let name = "demo-sync"
    static let summary = "show sync: a hub and two phones that buy the same milk offline"
    static let help = """
    Usage: shop-replay demo-sync [--dir DIR]

    Makes a hub journal and two phones' replicas of it in DIR (default: a new
    folder shop-sync-demo, or shop-sync-demo-2, … if that one exists), has
    both phones buy the same milk and make other changes offline, syncs them
    through a `shop-replay hub` process, and shows how it ended. It never
    writes into a folder that already holds files.

    Options:
      --dir DIR        where to put the demo's files (must be new or empty)
    """

    var dir: String?

    init(_ arguments: inout Arguments) throws(UsageError) {
        dir = try arguments.option("--dir", "DIR")
    }

    func run() throws -> Int32 {
        let folder = try makeFolder()
        let hub = folder + "/hub.ndjson", ana = folder + "/ana-phone.ndjson", ben = folder + "/ben-phone.ndjson"
        let milk = ItemID(), bread = ItemID(), eggs = ItemID(), butter = ItemID(), weekly = ListID()
        do {
            let journal = try Journal.create(path: hub, options: .init(actor: "ana", device: "demo"), existing: .refuse)
            defer { journal.close() }
            let dairy = LocationID(), bakery = LocationID()
            _ = try journal.execute(allOrNothing: [
                .createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"),
                .createLocation(location: dairy, name: "Dairy", color: nil), .createLocation(location: bakery, name: "Bakery", color: nil),
                .createItem(item: milk, name: "Milk", location: dairy, details: ItemDetails(unitPrice: 119)),
                .createItem(item: bread, name: "Bread", location: bakery, details: ItemDetails(unitPrice: 289)),
                .createItem(item: eggs, name: "Eggs", location: dairy, details: ItemDetails(unitPrice: 32)),
                .createItem(item: butter, name: "Butter", location: dairy, details: ItemDetails(unitPrice: 229)),
                .createList(list: weekly, name: "Weekly", priority: nil),
                .addItemToList(list: weekly, item: milk, quantity: 2), .addItemToList(list: weekly, item: bread, quantity: 1),
                .addItemToList(list: weekly, item: butter, quantity: 1),
                .addMember(member: "ana", role: .owner), .addMember(member: "ben", role: .owner),
            ].map { CommandEnvelope($0) })
        }
        let out = Output(json: false)
        out.line("Sync demo in \(folder): a hub and two phones, each a replica of the hub's journal")
        for (phone, actor) in [(ana, "ana"), (ben, "ben")] {
            _ = try sync(phone, actor: actor, settings: SyncSettings(hub: HubCommand.storable(hub), device: "\(actor)-phone"), clone: true)
        }
        out.line("cloned   ana-phone, ben-phone  (shop-replay clone --hub \(hub) …)")

        let buyMilk = Command.purchaseItem(purchase: PurchaseID(), item: milk, list: weekly, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)
        let anaPhone = try Replica(path: ana, options: .init(actor: "ana"))
        try anaPhone.execute(buyMilk)
        try anaPhone.execute(.renameItem(item: butter, name: "Salted butter"))
        out.line("offline  ana  buys Milk ×2 on Weekly; renames Butter to Salted butter        (\(anaPhone.pending.count) pending)")
        let benPhone = try Replica(path: ben, options: .init(actor: "ben"))
        try benPhone.execute(.purchaseItem(purchase: PurchaseID(), item: milk, list: weekly, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        try benPhone.execute(.addItemToList(list: weekly, item: eggs, quantity: 6))
        out.line("offline  ben  buys Milk ×2 on Weekly too; adds Eggs ×6 to Weekly            (\(benPhone.pending.count) pending)")

        for (phone, actor) in [(ben, "ben"), (ana, "ana"), (ben, "ben")] {
            let report = try sync(phone, actor: actor, settings: nil, clone: false)
            var line = "sync     \(actor)  pulled \(report.pulled), pushed \(report.pushed), accepted \(report.accepted)"
            for retry in report.retries {
                line += "\n              the hub refused \(actor)'s milk on the list (\(retry.error.code): ben bought it first);"
                line += "\n              sent again off the list, same purchase id and time: a purchase is never lost"
            }
            for rejected in report.rejected { line += "\n              rejected \(rejected.command.command.typeName): \(rejected.error.code)" }
            out.line(line)
        }

        let same = [ana, ben].allSatisfy { FileManager.default.contents(atPath: $0) == FileManager.default.contents(atPath: hub) }
        let state = try Replica(path: ana).state
        // The milk's purchases as recorded (the state keeps only what the rules need of a purchase).
        let purchases = try JournalReader.readAll(path: ana).compactMap { recorded -> (quantity: Quantity, actor: String, list: ListID?)? in
            guard case let .itemPurchased(_, item, list, quantity, _, _, _, _) = recorded.event, item == milk else { return nil }
            return (quantity, recorded.actor, list)
        }
        let reader = try JournalReader(path: hub)
        while try reader.next() != nil {}
        let head = try reader.head()
        out.line("result   hub and both phones are byte-identical: \(same ? "yes" : "NO") (head \(head.seq):\(head.hash.hex.prefix(12))…)")
        for purchase in purchases {
            out.line("         Milk ×\(purchase.quantity) bought by \(purchase.actor) \(purchase.list == nil ? "off the list" : "on Weekly")")
        }
        let butterName = state.items[butter]!.name   // the demo made it, and renames it but never deletes it
        let eggsOnWeekly = state.lists[weekly]?.entries.contains { $0.item == eggs } == true
        out.line("         Butter is now \"\(butterName)\"; Eggs are on Weekly: \(eggsOnWeekly ? "yes" : "no")")
        out.line("Try: shop-replay view audit --journal \(ana)")
        return same ? 0 : 1
    }

    /// A new folder: DIR (new or empty), else shop-sync-demo, shop-sync-demo-2, …
    private func makeFolder() throws -> String {
        let manager = FileManager.default
        if let dir {
            if let contents = try? manager.contentsOfDirectory(atPath: dir), !contents.isEmpty {
                throw ToolFailure(message: "\(dir) already holds files; give a new or empty folder (the demo never writes over files)", exitCode: 2)
            }
            try manager.createDirectory(atPath: dir, withIntermediateDirectories: true)
            return dir
        }
        var name = "shop-sync-demo", attempt = 1
        while manager.fileExists(atPath: name) {
            attempt += 1
            name = "shop-sync-demo-\(attempt)"
        }
        try manager.createDirectory(atPath: name, withIntermediateDirectories: false)
        return name
    }

    private func sync(_ phone: String, actor: String, settings: SyncSettings?, clone: Bool) throws -> SyncReport {
        let hub = try settings?.hub ?? SyncSettings.load(journal: phone).hub
        let transport = try ProcessTransport(command: HubCommand.shell(hub))
        defer { transport.close() }
        let options = Journal.Options(actor: actor)
        return try SyncRun.wait {
            if let settings, clone {
                return try await SyncClient.clone(journal: phone, settings: settings, options: options, over: transport)
            }
            return try await SyncClient(journal: phone, options: options).sync(over: transport)
        }
    }
}
