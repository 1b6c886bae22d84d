import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// Issue 50, item 4 (first stage): every view is right on a ``HouseholdModel``
/// as it comes, the audit included, and every public way of folding views
/// keeps what every view shows; only the package's one-view reads fold less.
@Suite struct ViewsKeepWhatTheyShowTests {
    typealias Household = ViewFoldsDueAndKeysTests.Household

    /// The audit's rows of ``ViewFoldsDueAndKeysTests/Household``: each purchase and whether it is reverted, in journal order.
    static func auditRows(_ h: Household) -> [String] {
        let milk = (0x100...0x104).map { n in "\(id(n) as PurchaseID) Milk \(n == 0x103)" }
        let eggs = (0x110...0x112).map { n in "\(id(n) as PurchaseID) Eggs false" }
        return milk + eggs
    }

    static func rows(_ view: AuditView) -> [String] {
        view.purchases.map { "\($0.purchase) \($0.itemName) \($0.isReverted)" }
    }

    /// Waits (up to 20 s) until the model has folded event `seq`.
    @MainActor static func wait(for model: HouseholdModel, through seq: Int) async throws {
        let deadline = Date().addingTimeInterval(20)
        while model.views.asOf < seq, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(model.views.asOf == seq)
    }

    @Test("the audit and every other view on a HouseholdModel as it comes are a rebuild's; so after an event it follows")
    @MainActor func everyViewOnTheModel() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, h) = try ViewFoldsDueAndKeysTests.journal(folder)
        let store = try await ShopStore(path: path, options: .init(actor: "ana", device: "test"))
        let model = try await HouseholdModel(store: store)
        let rebuilt = try ViewEngine.views(journal: path, useSnapshot: false).0
        #expect(model.views == rebuilt)
        #expect(Self.rows(AuditView(model.views)) == Self.auditRows(h))
        #expect(AuditView(model.views) == AuditView(rebuilt))
        #expect(AuditView(model.views, filter: AuditView.Filter(item: h.eggs)).purchases.map(\.itemName) == ["Eggs", "Eggs", "Eggs"])
        let now = try #require(model.views.asOfTime)
        #expect(PricesView(model.views) == PricesView(rebuilt) && PricesView(model.views).items.map(\.name) == ["Milk"])
        #expect(StatsView(model.views) == StatsView(rebuilt) && model.stats == StatsView(rebuilt))
        #expect(DueView(model.views, now: now) == DueView(rebuilt, now: now))
        #expect(ItemsByNameView(model.views) == ItemsByNameView(rebuilt))
        #expect(ItemsByPurchaseDateView(model.views) == ItemsByPurchaseDateView(rebuilt))

        // One more purchase, written through the store: the model's audit shows it at once.
        try await store.execute(.purchaseItem(purchase: id(0x120), item: h.flour, quantity: 1, unitPrice: 250))
        let head = await store.head.seq
        try await Self.wait(for: model, through: head)
        #expect(Self.rows(AuditView(model.views)) == Self.auditRows(h) + ["\(id(0x120) as PurchaseID) Flour false"])
        #expect(model.views == (try ViewEngine.views(journal: path, useSnapshot: false).0))
    }

    @Test("a model opened beside a snapshot without the records (shop-replay snapshot's default) still shows the audit")
    @MainActor func theModelBesideATotalsSnapshot() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, h) = try ViewFoldsDueAndKeysTests.journal(folder)
        let saved = try ReplicaViews.saveSnapshotsWithoutRecords(journal: path)
        #expect(saved.warnings.isEmpty && FileManager.default.fileExists(atPath: ViewSnapshot.path(forJournal: path)))
        let store = try await ShopStore(path: path, options: .init(actor: "ana", device: "test"))
        let model = try await HouseholdModel(store: store)
        #expect(Self.rows(AuditView(model.views)) == Self.auditRows(h))
        #expect(model.views == (try ViewEngine.views(journal: path, useSnapshot: false).0))
    }

    @Test("every public way of folding views keeps every record: the audit is right on each")
    func everyPublicFoldKeepsTheRecords() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, h) = try ViewFoldsDueAndKeysTests.journal(folder)
        let engine = ViewEngine(journalPath: path)
        let folds: [HouseholdViews] = [
            try engine.refresh(),
            try ViewEngine.views(journal: path).0,
            try ReplicaViews.load(journal: path).views,
            try ReplicaViews.saveSnapshots(journal: path).views,
            try ViewEngine.views(journal: path).0,            // now from that snapshot
            try ReplicaViews.load(journal: path).views,       // and again
        ]
        #expect(folds.map { $0.audit.records.count } == Array(repeating: folds[0].state.purchases.count, count: folds.count))
        #expect(folds.map { Self.rows(AuditView($0)) } == Array(repeating: Self.auditRows(h), count: folds.count))
        var byEvent = HouseholdViews()
        for recorded in try JournalReader.readAll(path: path) { byEvent.apply(recorded) }
        #expect(byEvent == folds[0])
    }
}
