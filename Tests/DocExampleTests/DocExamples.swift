// Every DocC example in Sources, verbatim, so that building the tests compiles them.
// DocExampleTests checks that each example here is still exactly its doc comment.
// The parameters give each example the values its surrounding text assumes.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLSession on Linux
#endif
import Observation
import ShopEvents
import ShopProjections

// Sources/ShopEvents/Archive/SL17Archive.swift #1
@MainActor func example_SL17Archive_1(url: URL) throws {
    let archive = try SL17Archive.parse(Array(try Data(contentsOf: url)))
    print(archive.locations.count, archive.locations.flatMap(\.items).count)
}

// Sources/ShopEvents/Archive/SL17Transfer.swift #1
@MainActor func example_SL17Transfer_1(archive: SL17Archive, importID: CorrelationID, journal: Journal) throws {
    let commands = SL17Transfer.importCommands(archive, into: journal.state, ids: .random)
    let results = try journal.execute(batch: commands.map { CommandEnvelope($0, correlation: importID) })
}

// Sources/ShopEvents/Codec/CodecError.swift #1
@MainActor func example_CodecError_1() throws {
    do { _ = try EventLineCodec.decode(Array("{\"seq\":1".utf8)) }
    catch let error as CodecError { print(error.code, error.offset) }   // malformed_json 8
}

// Sources/ShopEvents/Codec/CommandCatalog.swift #1
@MainActor func example_CommandCatalog_1(journal: Journal) throws {
    print(CommandCatalog.fields(of: .addItemToList))        // ["list", "item", "quantity?"]
    let line = #"{"type":"AddItemToList","data":{"list":"weekly","item":"Milk"}}"#
    let resolved = try CommandCatalog.resolvingNames(in: Array(line.utf8), state: journal.state)
    let request = try CommandCodec.decode(resolved, ids: .random)   // ids, as the journal records them
}

// Sources/ShopEvents/Codec/CommandCodec.swift #1
@MainActor func example_CommandCodec_1() throws {
    let text = #"{"type":"CreateList","actor":"ana","data":{"name":"Weekly"}}"#
    let request = try CommandCodec.decode(Array(text.utf8), ids: .random)
}

// Sources/ShopEvents/Codec/CommandCodec.swift #2
@MainActor func example_CommandCodec_2(replica: Replica) throws {
    let create = #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#
    let request = try CommandCodec.decode(Array(create.utf8), ids: .random, household: replica.household)
}

// Sources/ShopEvents/Codec/CommandNames.swift #1
@MainActor func example_CommandNames_1(writer: CommandWriter, id: CommandID) throws {
    let names: CommandCatalog.Names = writer.holds(command: id) ? .notLookedUp : .resolve(try writer.refreshedState())
}

// Sources/ShopEvents/Codec/CommandNames.swift #2
@MainActor func example_CommandNames_2(journal: Journal) throws {
    let line = #"{"type":"ChangeQuantity","data":{"list":"Weekly","item":"Milk","quantity":2}}"#
    let request = try CommandCatalog.decode(Array(line.utf8), names: .resolve(journal.state), ids: .random)
}

// Sources/ShopEvents/Codec/CommandNames.swift #3
@MainActor func example_CommandNames_3() throws {
    let cut = #"{"type":"RenameItem","id":"00000000-0000-0000-0000-0000000000C1","data":{"#
    print(CommandCatalog.commandID(in: Array(cut.utf8)) as Any)   // the id, though the line is cut short
}

// Sources/ShopEvents/Codec/EventLineCodec.swift #1
@MainActor func example_EventLineCodec_1(recorded: RecordedEvent) throws {
    let line = EventLineCodec.encode(recorded)          // bytes without the "\n"
    let back = try EventLineCodec.decode(line)          // == recorded
}

// Sources/ShopEvents/Codec/EventLineCodec.swift #2
@MainActor func example_EventLineCodec_2(bytes: [UInt8]) throws {
    switch try EventLineCodec.decodeLine(bytes) {
    case let .event(recorded): print(recorded.event.typeName)
    case let .newer(line): print("\(line.type) v\(line.version): update ShopEvents")
    }
}

// Sources/ShopEvents/Codec/EventLineCodec.swift #3
@MainActor func example_EventLineCodec_3(bytes: [UInt8]) throws {
    if case let .newer(line) = try EventLineCodec.decodeLine(bytes) {
        print("line \(line.seq): \(line.type) v\(line.version) needs a newer ShopEvents")
    }
}

// Sources/ShopEvents/Codec/JSONValue.swift #1
@MainActor func example_JSONValue_1() throws {
    let value: JSONValue = .object([("view", "lists"), ("asOf", 42)])
    print(value.text())                       // {"view":"lists","asOf":42}
    let back = try JSONValue.parse(Array(value.text().utf8))
}

// Sources/ShopEvents/Codec/JSONValue.swift #2
@MainActor func example_JSONValue_2() throws {
    var out: [UInt8] = []
    JSONValue.array([1, 2, 3]).write(pretty: true, inPiecesOf: 4) { out += $0 }
}

// Sources/ShopEvents/Domain/Barcode.swift #1
@MainActor func example_Barcode_1() throws {
    print(Barcode.isValid("4006381333931"))   // true (EAN-13)
    print(Barcode.isValid("4006381333932"))   // false: the check digit is 1
    print(Barcode.key("036000291452") == Barcode.key("0036000291452"))   // true
}

// Sources/ShopEvents/Domain/Command.swift #1
@MainActor func example_Command_1(milk: ItemID, state: ShopState, weekly: ListID) throws {
    let add = Command.addItemToList(list: weekly, item: milk, quantity: 2)
    let events = try ShopDecider.decide(add, state, actor: "ana")
    let bought = Command.purchaseItem(item: milk, list: weekly)     // the entry's quantity, the item's price and place
}

// Sources/ShopEvents/Domain/Command.swift #2
@MainActor func example_Command_2(milk: ItemID, journal: Journal) throws {
    var request = CommandEnvelope(.renameItem(item: milk, name: "Oat milk"), actor: "ana")
    request.expectedSeq = journal.head.seq      // reject if someone wrote meanwhile
    try journal.execute(request)
}

// Sources/ShopEvents/Domain/CommandDeclaration.swift #1
@MainActor func example_CommandDeclaration_1() throws {
    print(CommandType(endingWith: .itemDeleted))   // deleteItem
}

// Sources/ShopEvents/Domain/Command.swift #3
@MainActor func example_Command_3(purchaseCommand: CommandID) throws {
    // The id's first command ended with ItemPurchased: a CreateList under it is refused.
    try ShopDecider.requireRetry(.createList, id: purchaseCommand, first: .purchaseItem)   // id_reused
}

// Sources/ShopEvents/Domain/Envelope.swift #1
@MainActor func example_Envelope_1(request: CommandEnvelope, state: ShopState, last: Timestamp) throws {
    let decided = try ShopDecider.decide(request, state, after: JournalEnd(seq: 41, lastAt: last),
                                         now: Clock.system.now(), defaultActor: "ana")
    print(decided.events, decided.at, decided.actor)
}

// Sources/ShopEvents/Domain/Envelope.swift #2
@MainActor func example_Envelope_2(milk: ItemID, state: ShopState, now: Timestamp) throws {
    let next = ShopState.evolve(state, .itemRenamed(item: milk, name: "Oat milk"), EventContext(seq: 42, at: now, actor: "ana"))
}

// Sources/ShopEvents/Domain/Event.swift #1
@MainActor func example_Event_1(milk: ItemID) throws {
    let event = Event.itemRenamed(item: milk, name: "Whole milk")
    print(event.typeName)   // ItemRenamed
}

// Sources/ShopEvents/Codec/RecordedEvent.swift #1
@MainActor func example_Event_2() throws {
    let reader = try JournalReader(path: "shop.ndjson")
    while let recorded = try reader.next() {
        print(recorded.seq, recorded.at, recorded.actor, recorded.event.typeName)
    }
}

// Sources/ShopEvents/Domain/EventCheck.swift #1
@MainActor func example_EventCheck_1(milk: ItemID, state: ShopState) throws {
    try ShopDecider.check(.itemRenamed(item: milk, name: "Oat milk"), state, actor: "ana")   // ok, or a RuleViolation
}

// Sources/ShopEvents/Domain/EventDeclaration.swift #1
@MainActor func example_EventDeclaration_1() throws {
    let purchased = EventType.itemPurchased.declaration
    print(purchased.version)                               // 2
    print(purchased.fields(at: 1).map(\.key).contains("store"))   // false: version 2 added it
}

// Sources/ShopEvents/Domain/EventVersions.swift #1
@MainActor func example_EventVersions_1() throws {
    print(EventType.itemPurchased.currentVersion)     // 2
    let old = EventV1.ItemAddedToList(list: ListID(), item: ItemID(), quantity: 2)
    print(old.upgraded())                             // itemAddedToList(…, quantity: 2)
}

// Sources/ShopEvents/Domain/EventVersions.swift #2
@MainActor func example_EventVersions_2() throws {
    let old = EventV1.ListEntryQuantityChanged(list: ListID(), item: ItemID(), quantity: 3)
    if case let .listEntryQuantityChanged(_, _, quantity) = old.upgraded() { print(quantity) }   // 3
}

// Sources/ShopEvents/Domain/Identifiers.swift #1
@MainActor func example_Identifiers_1() throws {
    let milk = ItemID()                                  // a fresh random id
    let same = ItemID("e976a9e1-0806-4504-99bf-116004c8ded9")  // any case in
    print(same!)                                          // upper case out
}

// Sources/ShopEvents/Domain/Identifiers.swift #2
@MainActor func example_Identifiers_2() throws {
    var generator = IDGenerator.sequential()   // 00000000-…-000000000001, …02, …
    let id: ItemID = generator.make()
}

// Sources/ShopEvents/Support/RandomUUIDs.swift #1
@MainActor func example_RandomUUIDs_1() throws {
    let ids = IDGenerator.random
    let milk: ItemID = ids.make()
}

// Sources/ShopEvents/Domain/Quantity.swift #1
@MainActor func example_Quantity_1() throws {
    let kilos = Quantity(thousandths: 1_500)            // 1.5
    print(kilos, kilos.cost(unitPrice: 199))           // "1.5 298" (298.5 rounds to the even 298)
    let two: Quantity = 2
    print(two + kilos)                                 // "3.5"
}

// Sources/ShopEvents/Domain/RuleViolation.swift #1
@MainActor func example_RuleViolation_1(milk: ItemID, journal: Journal, weekly: ListID) throws {
    do { try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 1)) }
    catch let violation as RuleViolation where violation.reason == .alreadyOnList {
        print(violation.message)   // item … "Milk" is already on list … and not bought
    }
}

// Sources/ShopEvents/Domain/ShopDecider.swift #1
@MainActor func example_ShopDecider_1() throws {
    var state = ShopState.initial
    let events = try ShopDecider.decide(
        .createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"),
        state, actor: "ana")
    // [.householdCreated(…)]
}

// Sources/ShopEvents/Domain/PurchaseLedger.swift #1
@MainActor func example_PurchaseLedger_1() throws {
    let state = ShopState.initial
    if let bought = state.purchases[PurchaseID()], !bought.isReverted { print(bought.effectiveTime) }
    print(state.purchases.count, state.purchases.values.filter(\.isReverted).count)
}

// Sources/ShopEvents/Domain/PurchaseLedger.swift #2
@MainActor func example_PurchaseLedger_2() throws {
    let state = ShopState.initial
    let live = state.purchases.values.filter { !$0.isReverted }
    print(live.map(\.item), live.map(\.effectiveTime))
}

// Sources/ShopEvents/Domain/ShopState.swift #1
@MainActor func example_ShopState_1(events: [RecordedEvent]) throws {
    var state = ShopState.initial
    for recorded in events { state = ShopState.evolve(state, recorded) }
    print(state.liveItems.count)
}

// Sources/ShopEvents/Domain/Stores.swift #1
@MainActor func example_Stores_1(state: ShopState, corner: StoreID) throws {
    let aisles = state.visitingOrder(at: corner)   // the corner shop's order, Unknown last
}

// Sources/ShopEvents/Domain/Stores.swift #2
@MainActor func example_Stores_2(state: ShopState) throws {
    let corner = state.stores.values.first { !$0.isDeleted && $0.name == "Corner shop" }
}

// Sources/ShopEvents/Domain/ItemDetailsPatch.swift #1
@MainActor func example_ItemDetailsPatch_1() throws {
    let price: FieldPatch<Int> = .set(249)
    print(price.applied(to: 199), FieldPatch<Int>.keep.applied(to: 199), FieldPatch<Int>.clear.applied(to: 199))
    // Optional(249) Optional(199) nil
}

// Sources/ShopEvents/Domain/ItemDetailsPatch.swift #2
@MainActor func example_ItemDetailsPatch_2(journal: Journal, milk: ItemID) throws {
    // Milk's notes become "organic", its price goes; category, unit, barcode… stay.
    try journal.execute(.changeItemDetails(item: milk, patch: ItemDetailsPatch(notes: .set("organic"), unitPrice: .clear)))
    // The whole set replaced, as a ChangeItemDetails did before v4:
    try journal.execute(.changeItemDetails(item: milk, patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: 129))))
}

// Sources/ShopEvents/Domain/Timestamp.swift #1
@MainActor func example_Timestamp_1() throws {
    let at = Timestamp("2026-11-22T09:30:00.000Z")!
    print(at)                                   // 2026-11-22T09:30:00.000Z
    print(at.adding(milliseconds: 1_500))       // 2026-11-22T09:30:01.500Z
}

// Sources/ShopEvents/Domain/Clock.swift #1
@MainActor func example_Clock_1() throws {
    let clock = Clock.stepping(from: Timestamp("2026-01-01T08:00:00.000Z")!, by: 1000)
}

// Sources/ShopEvents/Domain/Color.swift #1
@MainActor func example_Color_1() throws {
    let dairy = Color(red: 0.2, green: 0.4, blue: 1, opacity: 1)
}

// Sources/ShopEvents/Domain/Role.swift #1
@MainActor func example_Role_1(journal: Journal) throws {
    try journal.execute(.addMember(member: "ben", role: .member))   // ana (the issuer) becomes an owner first
}

// Sources/ShopEvents/Domain/ItemDetails.swift #1
@MainActor func example_ItemDetails_1() throws {
    let details = ItemDetails(category: "Dairy", unitPrice: 129)
}

// Sources/ShopEvents/Domain/Limits.swift #1
@MainActor func example_Limits_1() throws {
    try Limits.checkNoControlCharacters("Oat milk 🥛", field: "name")      // fine
    do { try Limits.checkNoControlCharacters("csi\u{9B}31m", field: "name") }
    catch { print(error.code) }                                            // invalid_name
    try Limits.checkNoControlCharacters("1 l\nor 2", field: "notes", allowingLineBreaks: true)
}

// Sources/ShopEvents/Journal/DurableFile.swift #1
@MainActor func example_DurableFile_1() throws {
    try DurableFile.writeAtomically(Array("kept\n".utf8), to: "/srv/hub/hub.key", mode: 0o600)
}

// Sources/ShopEvents/Journal/Journal.swift #1
@MainActor func example_Journal_1() throws {
    let journal = try Journal.open(path: "shop.ndjson", options: .init(actor: "ana"))
    let home = HouseholdID(), milk = ItemID()
    try journal.execute(.createHousehold(household: home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
    try journal.execute(.createItem(item: milk, name: "Milk", location: nil, details: .init(unitPrice: 119)))
    print(journal.head)          // 2:5c1e…
    journal.close()
}

// Sources/ShopEvents/Journal/Journal.swift #2
@MainActor func example_Journal_2() throws {
    let journal = try Journal.create(path: "demo.ndjson", existing: .keepAsBackup)
    if let old = journal.previousJournalBackup { print("the earlier journal is now \(old)") }
}

// Sources/ShopEvents/Journal/Journal.swift #3
@MainActor func example_Journal_3(commands: [Command], journal: Journal) throws {
    try journal.saveSnapshot()
    let again = try Journal.open(path: "shop.ndjson")      // reads only the lines after it
    print(again.startedFromSnapshot as Any)
}

// Sources/ShopEvents/Journal/Journal+Execute.swift #1
@MainActor func example_JournalWriting_1() throws {
    func buyMilk(in journal: some JournalWriting, milk: ItemID) throws {
        try journal.execute(.purchaseItem(item: milk))
        try journal.saveSnapshot()
    }
}

// Sources/ShopEvents/Journal/SharedJournal.swift #1
@MainActor func example_SharedJournal_1() throws {
    let shared = try SharedJournal.open(path: "shop.ndjson", options: .init(actor: "ana"))
    try shared.execute(.createList(list: ListID(), name: "Weekend", priority: nil))   // others may write meanwhile
    print(shared.head)
    shared.close()
}

// Sources/ShopEvents/Journal/Journal+Execute.swift #2
@MainActor func example_Journal_5(commands: [Command], journal: Journal) throws {
    do { let outcomes = try journal.execute(allOrNothing: commands.map { CommandEnvelope($0) }) }
    catch let rejection as BatchRejection { print("command \(rejection.index): \(rejection.violation)") }
}

// Sources/ShopEvents/Journal/Journal+Pipelined.swift #1
@MainActor func example_Journal_6(commands: [Command], journal: Journal) throws {
    let batches = [commands.map { CommandEnvelope($0) }]
    try journal.execute(batches: batches) { results in print(results.count, "commands durable") }
}

// Sources/ShopEvents/Codec/RecordedEvent.swift #2
@MainActor func example_JournalChain_1(journal: Journal) throws {
    let head = journal.head
    print("\(head)")                // 1234:9f86d08…   (the form `verify --expect-head` takes)
}

// Sources/ShopEvents/Journal/JournalChain.swift #1
@MainActor func example_JournalChain_2() throws {
    let reader = try JournalReader(path: "shop.ndjson")
    while let _ = try reader.next() {}
    if let newer = reader.newerLine { print(newer.error.message) }   // "line 812 …: update …"
}

// Sources/ShopEvents/Journal/JournalError.swift #1
@MainActor func example_JournalError_1() throws {
    do {
        _ = try Journal.open(path: "shop.ndjson")
    } catch {                                       // `open` throws only JournalError
        if error.reason == .corruptLine { print("line \(error.line!), byte \(error.offset!): \(error.message)") }
    }
}

// Sources/ShopEvents/Journal/JournalReader.swift #1
@MainActor func example_JournalReader_1() throws {
    let reader = try JournalReader(path: "shop.ndjson", from: 100)
    while let recorded = try reader.next() {
        print(recorded.seq, recorded.event.typeName)
    }
    print(reader.head)     // the audit head of what was read
}

// Sources/ShopEvents/Journal/JournalReader.swift #2
@MainActor func example_JournalReader_2(path: String) throws {
    let reader = try JournalReader(path: path)
    while let _ = try reader.next() {}
    let later = try JournalReader(path: path, resumingAt: reader.position)   // only new events
}

// Sources/ShopEvents/Journal/JournalVerifier.swift #1
@MainActor func example_JournalVerifier_1() throws {
    let report = try JournalVerifier.verify(path: "shop.ndjson", expecting: JournalHead("1200:9f86d08…"))
    print(report.ok ? "ok \(report.head)" : report.failure!.message)
}

// Sources/ShopEvents/Codec/SHA256Digest.swift #1
@MainActor func example_SHA256_1() throws {
    let digest = SHA256.hash(Array("abc".utf8))
    print(digest)   // ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
}

// Sources/ShopEvents/Journal/SHA256.swift #1
@MainActor func example_SHA256_2() throws {
    var hasher = SHA256()
    hasher.update(Array("ab".utf8))
    hasher.update(Array("c".utf8))
    let digest = hasher.finalize()
}

// Sources/ShopEvents/Store/ShopStore.swift #1
@MainActor func example_ShopStore_1() async throws {
    let store = try await ShopStore(path: "shop.ndjson", options: .init(actor: "ana"))
    let milk = ItemID()
    try await store.execute(.createItem(item: milk, name: "Milk", location: nil, details: .init(unitPrice: 119)))
    print(await store.head)
    for try await recorded in store.events(after: 0) {
        print(recorded.seq, recorded.event.typeName)
    }
}

// Sources/ShopProjections/Views/LiveStats.swift #1
@MainActor func example_LiveStats_1(events: [RecordedEvent]) throws {
    var views = HouseholdViews()
    var stats = LiveStats(views)
    for recorded in events {
        views.apply(recorded)
        stats.update(after: recorded, in: views)
    }
    print(stats.view.items.first?.name as Any)
}

// Sources/ShopProjections/HouseholdCalendar.swift #1
@MainActor func example_HouseholdCalendar_1() throws {
    let berlin = HouseholdCalendar(timeZone: "Europe/Berlin")
    berlin.day(Timestamp("2026-06-01T23:30:00.000Z")!)   // "2026-06-02"
}

// Sources/ShopProjections/HouseholdCalendar.swift #2
@MainActor func example_HouseholdCalendar_2() throws {
    HouseholdCalendar(timeZone: "Europe/Berlin").second(Timestamp("2026-11-26T09:00:00.250Z")!)   // "2026-11-26T10:00:00+01:00"
}

// Sources/ShopProjections/HouseholdModel.swift #1
@MainActor func example_HouseholdModel_1() async throws {
    let store = try await ShopStore(path: "shop.ndjson", options: .init(actor: "ana"))
    let model = try await HouseholdModel(store: store)
    print(model.views.asOf)
    try await store.execute(.createList(list: ListID(), name: "Weekend", priority: nil))
    // a moment later: model.views.asOf has moved on, and observers were told
}

// Sources/ShopProjections/HouseholdViews.swift #1
@MainActor func example_HouseholdViews_1(weekly: ListID) throws {
    let engine = ViewEngine(journalPath: "shop.ndjson")
    let views = try engine.refresh()
    let list = ShoppingListView(views, list: weekly, grouping: .byLocation)
}

// Sources/ShopProjections/Projection.swift #1
@MainActor func example_Projection_1() throws {
    struct PurchaseCount: Projection {
        var count = 0
        init() {}
        mutating func apply(_ recorded: RecordedEvent) {
            if case .itemPurchased = recorded.event { count += 1 }
        }
    }
    let replayer = Replayer<PurchaseCount>(path: "shop.ndjson")
    try replayer.catchUp()
    print(replayer.value.count)
}

// Sources/ShopProjections/Projection.swift #2
@MainActor func example_Projection_2(replayer: Replayer<HouseholdViews>) throws {
    try replayer.catchUp(to: .seq(100))                               // as of event 100
    try replayer.catchUp(to: .time(Timestamp("2026-01-01T00:00:00.000Z")!))  // as of a time
}

// Sources/ShopProjections/Replayer.swift #1
@MainActor func example_Replayer_1() throws {
    let replayer = Replayer<HouseholdViews>(path: "shop.ndjson")
    try replayer.catchUp(to: .seq(500))     // the household as of event 500
    try replayer.catchUp()                  // … and now up to date
}

// Sources/ShopProjections/ViewEngine.swift #1
@MainActor func example_ViewEngine_1() throws {
    let engine = ViewEngine(journalPath: "shop.ndjson")
    let views = try engine.refresh()
    print(engine.warnings)                 // [] — or why the snapshot was not used
    try engine.saveSnapshot()
}

// Sources/ShopProjections/Report/HouseholdReport.swift #1
@MainActor func example_HouseholdReport_1() throws {
    let engine = ViewEngine(journalPath: "shop.ndjson")
    let views = try engine.refresh()
    let head = try JournalReader(path: "shop.ndjson", resumingAt: engine.position).head()
    let html = HouseholdReport(views: views, head: head, journal: "shop.ndjson").html
}

// Sources/ShopProjections/Report/ReportFigures.swift #1
@MainActor func example_ReportFigures_1(views: HouseholdViews) throws {
    let figures = ReportFigures(views, from: nil, to: nil)
    print(figures.total.spend, figures.months.map(\.name))
}

// Sources/ShopProjections/Views/AuditView.swift #1
@MainActor func example_AuditView_1(views: HouseholdViews) throws {
    var filter = AuditView.Filter()
    filter.actor = "ben"
    for row in AuditView(views, filter: filter).purchases { print(row.purchasedAt, row.itemName, row.quantity) }
}

// Sources/ShopProjections/Views/AuditQuery.swift #1
@MainActor func example_AuditQuery_1() throws {
    let (views, _) = try ViewEngine.views(journal: "shop.ndjson")
    let query = AuditQuery(journal: "shop.ndjson", views: views, filter: AuditView.Filter(actor: "ben"))
    try query.forEach { row in print(row.seq, row.itemName, row.quantity, row.isReverted) }
}

// Sources/ShopProjections/Views/DueView.swift #1
@MainActor func example_DueView_1(views: HouseholdViews) throws {
    let due = DueView(views, now: Clock.system.now())
    for row in due.items { print(row.name, row.daysSince, row.overdue ?? .infinity) }
}

// Sources/ShopProjections/Views/ItemsView.swift #1
@MainActor func example_ItemsView_1(views: HouseholdViews) throws {
    for row in ItemsByNameView(views).items { print(row.name, row.locationName, row.lastPurchased as Any) }
}

// Sources/ShopProjections/Views/ItemsView.swift #2
@MainActor func example_ItemsView_2(views: HouseholdViews) throws {
    for section in ItemsByPurchaseDateView(views).sections { print(section.day ?? "never", section.items.count) }
}

// Sources/ShopProjections/Views/ListsView.swift #1
@MainActor func example_ListsView_1(views: HouseholdViews) throws {
    for row in ListsView(views).lists { print(row.name, row.remaining) }
}

// Sources/ShopProjections/Views/ListsView.swift #2
@MainActor func example_ListsView_2(views: HouseholdViews) throws {
    for row in DeletedListsView(views).lists { print(row.name, row.deletedBy, row.deletedAt) }
}

// Sources/ShopProjections/Views/ListsView.swift #3
@MainActor func example_ListsView_3(views: HouseholdViews) throws {
    for row in LocationsView(views).locations { print(row.position, row.name, row.items) }
}

// Sources/ShopProjections/Views/MembersView.swift #1
@MainActor func example_MembersView_1(views: HouseholdViews) throws {
    let members = MembersView(views)
    print(members.isOpen ? "open household" : members.members.map { "\($0.member) (\($0.role.rawValue))" })
}

// Sources/ShopProjections/Views/PricesView.swift #1
@MainActor func example_PricesView_1(views: HouseholdViews) throws {
    for item in PricesView(views).items { print(item.name, item.cheapest as Any, item.stores.map(\.lastUnitPrice)) }
}

// Sources/ShopProjections/Views/ShoppingListView.swift #1
@MainActor func example_ShoppingListView_1(weekly: ListID, views: HouseholdViews) throws {
    let view = ShoppingListView(views, list: weekly, grouping: .byLocation)!
    for section in view.sections { print(section.title, section.entries.map(\.name)) }
    print(view.estimatedTotal, view.unpriced)
}

// Sources/ShopProjections/Views/ShoppingListView.swift #2
@MainActor func example_ShoppingListView_2(weekly: ListID, views: HouseholdViews) throws {
    let mine = ShoppingListView(views, list: weekly, grouping: .byLocation, for: "ben")!
    print(mine.remaining, mine.sections.flatMap(\.entries).map(\.name))
}

// Sources/ShopProjections/Views/ShoppingListView.swift #3
@MainActor func example_ShoppingListView_3(weekly: ListID, views: HouseholdViews) throws {
    let detail = ListDetailView(views, list: weekly)!
    print("bought \(detail.bought) of \(detail.total)")
}

// Sources/ShopProjections/Views/StatsView.swift #1
@MainActor func example_StatsView_1(views: HouseholdViews) throws {
    let stats = StatsView(views)
    for month in stats.months { print(month.month, month.tally.spend) }
    print(stats.trips.count, stats.trips.meanSeconds as Any)
}

// Sources/ShopProjections/Views/StatsView.swift #2
@MainActor func example_StatsView_2(views: HouseholdViews) throws {
    StatsView(views).writeJSON(adding: [("pending", 2)]) { piece in print(String(decoding: piece, as: UTF8.self), terminator: "") }
}

// Sources/ShopProjections/Views/StoresView.swift #1
@MainActor func example_StoresView_1(weekly: ListID, views: HouseholdViews) throws {
    if let store = ShoppingListView(views, list: weekly, grouping: .byLocation)?.store { print("at", store.name) }
}

// Sources/ShopProjections/Views/StoresView.swift #2
@MainActor func example_StoresView_2(views: HouseholdViews) throws {
    for store in StoresView(views).stores { print(store.name, store.purchases, store.lastPurchased as Any) }
}

// Sources/ShopEvents/Sync/Replica.swift #1
@MainActor func example_Replica_1(weekly: ListID, milk: ItemID) throws {
    let replica = try Replica(path: "phone.ndjson", options: .init(actor: "cleo"))
    let outcome = try replica.execute(CommandEnvelope(.addItemToList(list: weekly, item: milk, quantity: 2)))
    print(outcome.isPending, replica.pending.count)       // true, 1: `SyncClient.sync` sends it
}

// Sources/ShopEvents/Sync/Replica.swift #2
@MainActor func example_Replica_2() throws {
    let replica = try Replica(path: "phone.ndjson", options: .init(actor: "ana"))
    if let household = replica.household, replica.state.household == nil {
        try replica.execute(.createHousehold(household: household, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
    }
}

// Sources/ShopEvents/Sync/SyncClient.swift #1
@MainActor func example_SyncClient_1() async throws {
    let hub = try ProcessTransport(command: "shop-replay hub --journal /srv/home.ndjson")
    let report = try await SyncClient(journal: "phone.ndjson", options: .init(actor: "cleo")).sync(over: hub)
    print(report.pulled, report.accepted, report.rejected.map(\.error.code))
}

// Sources/ShopEvents/Sync/HubRules.swift #1
@MainActor func example_HubRules_1() throws {
    let rules = HubRules(defaultActor: "ana")
    let command = CommandEnvelope(.createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "Europe/Madrid"),
                                  id: CommandID())
    let decided = rules.push([HubRules.Push(commands: [command], actor: "ana")], on: HubRules.Fold(), known: [:],
                             now: { Timestamp(millisecondsSince1970: 1_800_000_000_000) }, ids: .random)
    print(decided.results[0][0].seqs, decided.lines.count, decided.fold.head.seq)   // [1] 1 1
}

// Sources/ShopEvents/Sync/HubJournalFile.swift #1
@MainActor func example_HubJournalFile_1() throws {
    let file = HubJournalFile(path: "/srv/home.ndjson")
    let (household, head) = try file.householdAndHead()
    let page = try file.lines(after: 0, page: 100)
    print(household as Any, head.seq, page.lines.count)
}

// Sources/ShopEvents/Sync/SyncHub.swift #1
@MainActor func example_SyncHub_1() throws {
    let hub = SyncHub(journal: "/srv/home.ndjson", as: "ben")
    let answer = hub.respond(to: .hello(protocol: 1, device: "ben-phone", actor: "ben"))
    let bytes = hub.respond(toLine: Array(#"{"pull":{"after":0,"hash":"\#(String(repeating: "0", count: 64))"}}"#.utf8))
}

// Sources/ShopEvents/Sync/SyncMessages.swift #1
@MainActor func example_SyncMessages_1(replicaHead: JournalHead) throws {
    let request = SyncRequest.pull(after: 41, hash: replicaHead.hash)
    let line = SyncWire.encode(request)            // {"pull":{"after":41,"hash":"…"}}\n
    let again = try SyncWire.decodeRequest(Array(line.dropLast()))
}

// Sources/ShopEvents/Sync/SyncMessages.swift #2
@MainActor func example_SyncMessages_2(transport: some SyncTransport) async throws {
    switch try await transport.send(.pull(after: 0, hash: .zero)) {
    case let .lines(lines, more): print(lines.count, more)
    case let .error(failure): print(failure)
    default: break
    }
}

// Sources/ShopEvents/Sync/SyncMessages.swift #3
@MainActor func example_SyncMessages_3() throws {
    let bytes = SyncWire.encode(SyncResponse.lines([Array(#"{"seq":1}"#.utf8)], more: false))
    // {"lines":1,"more":false}\n{"seq":1}\n
}

// Sources/ShopEvents/Sync/SyncMessages.swift #4
@MainActor func example_SyncMessages_4() throws {
    let answer = SyncResponse.hello(protocol: 1, household: nil, head: .empty)
    let bytes = SyncWire.encode(answer, enrolledActor: "ana")
    SyncWire.enrolledActor(inHello: Array(bytes.dropLast()))   // "ana"
}

// Sources/ShopEvents/Sync/SyncTransport.swift #1
@MainActor func example_SyncTransport_1() throws {
    struct HTTPSTransport: SyncTransport {
        let url: URL
        func send(_ request: SyncRequest) async throws -> SyncResponse {
            var post = URLRequest(url: url)
            post.httpMethod = "POST"
            post.httpBody = Data(SyncWire.encode(request))
            let (body, _) = try await URLSession.shared.data(for: post)
            var lines = body.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
            return try SyncWire.readResponse { lines.next() }
        }
    }
}

// Sources/ShopEvents/Sync/SyncTransport.swift #2
@MainActor func example_SyncTransport_2() async throws {
    let hub = try ProcessTransport(command: "ssh home shop-replay hub --journal /srv/home.ndjson")
    defer { hub.close() }
    let report = try await SyncClient(journal: "phone.ndjson").sync(over: hub)
}

// Sources/ShopEvents/Store/ReplicaStore.swift #1
@MainActor func example_ReplicaStore_1(weekly: ListID, milk: ItemID) async throws {
    let phone = try await ReplicaStore(path: "phone.ndjson", options: .init(actor: "cleo"))
    try await phone.execute(.addItemToList(list: weekly, item: milk, quantity: 2))   // pending, offline
    let report = try await phone.sync(over: try ProcessTransport(command: "ssh home shop-replay hub --journal /srv/home.ndjson"))
    print(report.accepted, await phone.pending.count)
}

// Sources/ShopEvents/Domain/Lookup.swift #1
@MainActor func example_Lookup_1(state: ShopState) throws {
    let milk = try state.find(item: "milk")                                  // the live Milk
    let gone = try state.find(list: "Party", in: .includingDeleted)          // a deleted list, by its last name
}

// Sources/ShopEvents/Domain/Lookup.swift #2
@MainActor func example_Lookup_2(state: ShopState) throws {
    let party = try state.find(deletedList: "Party")   // the deleted Party, though a live list is called Party too
}

// Sources/ShopProjections/EventHistory.swift #1
@MainActor func example_EventHistory_1(milk: ItemID) throws {
    try EventHistory.forEach(journal: "shop.ndjson", touching: .item(milk)) { recorded, before in
        print(recorded.seq, recorded.event.typeName)
    }
}

// Sources/ShopProjections/PurchaseRows.swift #1
@MainActor func example_PurchaseRows_1(events: [RecordedEvent], purchase: PurchaseID) throws {
    var state = ShopState.initial
    var rows = PurchaseRows()
    for recorded in events {
        rows.apply(recorded, before: state)
        state.apply(recorded)
    }
    if let bought = rows.purchase(purchase, in: state.purchases) { print(bought.location, bought.seq) }
}

// Sources/ShopProjections/EventHistory.swift #2
@MainActor func example_EventHistory_2(corner: StoreID, events: [RecordedEvent], state: inout ShopState) throws {
    var rows = PurchaseRows()
    var scan = EventHistory.Scan(.store(corner))
    for recorded in events {
        if scan.touches(recorded, before: state, rows: rows) { print(recorded.seq) }
        rows.apply(recorded, before: state)
        state.apply(recorded)
    }
}

// Sources/ShopProjections/ReplicaViews.swift #1
@MainActor func example_ReplicaViews_1() throws {
    let shown = try ReplicaViews.load(journal: "phone.ndjson")
    print(shown.views.asOf, shown.pending ?? 0)     // the outbox's commands, if a replica
}

// Sources/ShopEvents/Store/CommandWriter.swift #1
@MainActor func example_CommandWriter_1() throws {
    let writer = try CommandWriter(path: "shop.ndjson", options: .init(actor: "ana"))
    defer { writer.close() }
    let results = try writer.execute([CommandEnvelope(.createList(name: "Weekend"))])
    print(results.count, writer.isReplica)
}

// Sources/ShopEvents/Store/CommandWriter.swift #2
@MainActor func example_CommandWriter_2(writer: CommandWriter, id: CommandID) throws {
    if writer.holds(command: id) { print("a retry: answered with its first result, nothing written") }
}

// Sources/ShopEvents/Sync/HTTPSyncTransport.swift #1
@MainActor func example_HTTPSyncTransport_1(household: HouseholdID, token: String) async throws {
    let hub = HTTPSyncTransport(household: URL(string: "https://hub.example/v1/households/\(household)")!,
                                token: token)
    let report = try await SyncClient(journal: "phone.ndjson", options: .init(actor: "cleo")).sync(over: hub)
    print(report.pulled, report.accepted)
}

// Sources/ShopEvents/Sync/HTTPSyncTransport.swift #2
@MainActor func example_HTTPSyncTransport_2() {
    func follow(_ hub: HTTPSyncTransport, from head: JournalHead) async throws -> [[UInt8]] {
        guard case let .lines(lines, _) = try await hub.pull(after: head.seq, hash: head.hash, waiting: 30) else { return [] }
        return lines
    }
}

// Sources/ShopEvents/Sync/HTTPSyncTransport.swift #3
@MainActor func example_HTTPSyncTransport_3(household: HouseholdID, token: String) async throws {
    let hub = HTTPSyncTransport(household: URL(string: "https://hub.example/v1/households/\(household)")!, token: token)
    let actor = try await hub.enrolledActor(device: "ben-phone")     // "ben"
    let replica = SyncClient(journal: "phone.ndjson", options: .init(actor: actor))
}

// Sources/ShopEvents/Sync/HTTPSyncTransport.swift #4
@MainActor func example_HTTPSyncTransport_4() {
    func enrol(hub: URL) async throws -> HTTPSyncTransport {
        let first = try await HubEnrolment.createHousehold(hub: hub, device: "ana-phone", actor: "ana")
        return HTTPSyncTransport(household: first.url, token: first.token)
    }
}

// Sources/ShopEvents/Sync/HTTPSyncTransport.swift #5
@MainActor func example_HTTPSyncTransport_5(household: HouseholdID) {
    HubEnrolment.household(of: URL(string: "https://hub.example/v1/households/\(household)")!)   // household
    HubEnrolment.household(of: URL(string: "https://hub.example")!)                              // nil
}

// Sources/ShopEvents/Sync/HTTPSyncTransport.swift #6
@MainActor func example_HTTPSyncTransport_6(household: HouseholdID) {
    HubEnrolment.hub(of: URL(string: "https://hub.example/v1/households/\(household)")!)   // https://hub.example
}

// Sources/ShopEvents/Journal/CommandLines.swift #1
@MainActor func example_CommandLines_1() throws {
    func lines(of decided: DecidedCommand, id: CommandID, after head: JournalHead) -> [[UInt8]] {
        var prev = head.hash
        return CommandLines.records(of: decided, command: id, device: "ana-phone", correlation: nil,
                                    after: head.seq, prev: prev, eventID: { EventID() }).map { record in
            var record = record
            let (line, hash) = CommandLines.line(&record, after: prev)
            prev = hash
            return line
        }
    }
}

// Sources/ShopEvents/Codec/EventFields.swift #1
@MainActor func example_EventFields_1(milk: ItemID) throws {
    let renamed = Event.itemRenamed(item: milk, name: "Oat milk")
    print(renamed.id(forKey: "item") == milk.uuid, renamed.id(forKey: "list") as Any)   // true nil
}

// Sources/ShopEvents/Codec/EventValues.swift #1
@MainActor func example_EventValues_1(milk: ItemID) throws {
    let values: [String: EventDeclaration.Value] = ["item": .id(milk.uuid), "name": .text("Oat milk")]
    print(try Event(.itemRenamed, version: 1, values: values))   // itemRenamed(item: …, name: "Oat milk")
}

// Sources/ShopProjections/Suggestions/SuggestionIndex.swift #1
@MainActor func example_SuggestionIndex_1(events: [RecordedEvent]) throws {
    var views = HouseholdViews()
    var index = SuggestionIndex(views)
    for recorded in events {
        views.apply(recorded)
        index.update(after: recorded, in: views)
    }
    let offered = SuggestionsView(views, index: index, prefix: "mil", now: Clock.system.now())
    print(offered?.items.map(\.name) ?? [])
}

// Sources/ShopProjections/Suggestions/SuggestionsView.swift #1
@MainActor func example_SuggestionsView_1(views: HouseholdViews, weekly: ListID) throws {
    let index = SuggestionIndex(views)
    if let offered = SuggestionsView(views, index: index, list: weekly, prefix: "fr", limit: 5, now: Clock.system.now()) {
        for row in offered.items { print(row.name, row.due, row.recentPurchases) }
    }
}

// Sources/ShopProjections/Query/ViewTime.swift #1
@MainActor func example_ViewTime_1() throws {
    let day = ViewTime.parse("2026-03-01")                 // a day: its start or end in the household's zone
    let start = day?.startTime(in: .utc)                       // 2026-03-01T00:00:00.000Z
}

// Sources/ShopProjections/Query/ViewTime.swift #2
@MainActor func example_ViewTime_2() throws {
    let asOf = ViewAsOf.parse("120")                     // .seq(120)
    let stop = asOf.flatMap { $0.replayStop(calendar: .utc) }  // ReplayStop.seq(120)
}

// Sources/ShopProjections/Query/ViewQuery.swift #1
@MainActor func example_ViewQuery_1() throws {
    let query = try ViewQuery(name: "suggestions", options: ["prefix": "mi", "limit": "5"])
    let json = try query.json(HouseholdViews(), clock: Timestamp("2026-11-26T10:00:00.000Z")!)
    _ = json
}

// Sources/ShopProjections/Query/ViewQuery+Answer.swift #1
@MainActor func example_ViewQuery_Answer_1(views: HouseholdViews) throws {
    let found = try ViewQuery(view: .prices, item: "milk").resolve(views)
    print(found.item.map(\.description) ?? "every item")
}

// Sources/ShopProjections/Query/ViewQueryError.swift #1
@MainActor func example_ViewQueryError_1() throws {
    do { _ = try ViewQuery(name: "nope", options: [:]) } catch { print(error.code.rawValue) }   // unknown_view
}

// Sources/ShopProjections/Query/ViewFoldSource.swift #1
@MainActor func example_ViewFoldSource_1() throws {
    func lists(_ source: some ViewFoldSource) throws -> Int { try ListsView(source.presentFold()).lists.count }
    print(try lists(HouseholdViews()))   // 0
}

// Sources/ShopProjections/Query/ViewQueryName.swift #1
@MainActor func example_ViewQueryName_1() throws {
    let name = ViewQuery.Name(rawValue: "list-detail")   // .listDetail
    print(name?.needsList == true)                      // true
}

// Sources/ShopProjections/Views/HouseholdView.swift #1
@MainActor func example_HouseholdView_1(views: HouseholdViews) throws {
    let view = HouseholdView(views, now: Timestamp("2026-11-26T10:00:00.000Z")!, shopper: "ben")
    print(view.household?.name ?? "none", view.open, view.trip?.activeSeconds ?? 0, view.trips.map(\.shopper))
}

// Sources/ShopProjections/Views/ItemView.swift #1
@MainActor func example_ItemView_1(views: HouseholdViews, milk: ItemID) throws {
    guard let view = ItemView(views, item: milk) else { return }   // no such item
    print(view.item.name, view.lists.map(\.name), view.prices.map(\.name), view.purchases.count)
}

// Sources/ShopEvents/Storage/PresentState.swift #1
@MainActor func example_PresentState_1(events: [RecordedEvent]) throws {
    var present = PresentState()
    for recorded in events { present.apply(recorded) }
    let lists = present.state.lists.values.filter { !$0.isDeleted }
}

// Sources/ShopProjections/PurchaseTotals.swift #1
@MainActor func example_PurchaseTotals_1(events: [RecordedEvent], milk: ItemID) throws {
    var views = HouseholdViews()
    for recorded in events { views.apply(recorded) }
    let totals = views.statistics.totals
    print(totals.monthTotals["2026-11"]?.spend ?? 0, totals.lastPurchase(of: milk) as Any)
}

// Sources/ShopProjections/PurchaseStatistics.swift #1
@MainActor func example_PurchaseStatistics_1(events: [RecordedEvent], milk: ItemID) throws {
    var state = ShopState.initial, statistics = PurchaseStatistics()
    for recorded in events {
        statistics.apply(recorded, before: state)
        state.apply(recorded)
    }
    print(statistics.totals.items[milk]?.tally.purchases ?? 0)
}

// Sources/ShopProjections/PurchaseAudit.swift #1
@MainActor func example_PurchaseAudit_1(events: [RecordedEvent]) throws {
    var state = ShopState.initial, audit = PurchaseAudit()
    for recorded in events {
        audit.apply(recorded, before: state)
        state.apply(recorded)
    }
    print(audit.records.last?.itemName ?? "nothing bought yet")
}

// Sources/ShopProjections/ViewFolds.swift #1
@MainActor func example_ViewFolds_1() throws {
    func listNames(_ views: some StateFold) -> [String] { ListsView(views).lists.map(\.name) }
    print(listNames(try ViewEngine.views(journal: "shop.ndjson").0))
}

// Sources/ShopProjections/ViewFolds.swift #2
@MainActor func example_ViewFolds_2() throws {
    func reverted(_ views: some WholeStateFold) -> Int { views.state.purchases.values.filter(\.isReverted).count }
    print(reverted(HouseholdViews()))   // 0
}

// Sources/ShopProjections/ViewFolds.swift #3
@MainActor func example_ViewFolds_3() throws {
    func spent(_ views: some TotalsFold, in month: String) -> Int { views.totals.monthTotals[month]?.spend ?? 0 }
    print(spent(HouseholdViews(), in: "2026-11"))   // 0
}

// Sources/ShopProjections/ViewFolds.swift #4
@MainActor func example_ViewFolds_4() throws {
    func cheapest(_ views: some StatisticsFold, _ item: ItemID) -> StoreID? { PricesView(views, item: item).items.first?.cheapest }
    print(cheapest(HouseholdViews(), ItemID()) as Any)   // nil
}
