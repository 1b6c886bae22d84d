import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// The views of stores, units, barcodes and assignments against a model written again from the events alone:
/// random histories that use stores, trips at stores, decimal quantities,
/// units and barcodes (``RandomCommands``), checked at every 20th event and
/// as of a point read again from the journal. Costs are computed here with
/// Foundation's `Decimal` and banker's rounding, not with ``Quantity``.
@Suite struct HouseholdFeatureModelTests {
    struct Bought { var item: ItemID, quantity: Decimal, price: Int?, store: StoreID?, time: Timestamp, seq: Int, storeName: String? }

    /// quantity × price rounded half to even to the minor unit, by Decimal.
    static func cost(_ quantity: Decimal, _ price: Int) -> Int {
        var product = quantity * Decimal(price), rounded = Decimal()
        NSDecimalRound(&rounded, &product, 0, .bankers)
        return NSDecimalNumber(decimal: rounded).intValue
    }

    /// Every purchase still standing, with its store's name when it was bought.
    static func purchases(_ events: ArraySlice<RecordedEvent>) -> [PurchaseID: Bought] {
        var storeNames: [StoreID: String] = [:]
        var bought: [PurchaseID: Bought] = [:]
        for recorded in events {
            switch recorded.event {
            case let .storeCreated(store, name), let .storeRenamed(store, name): storeNames[store] = name
            case let .itemPurchased(purchase, item, _, quantity, price, _, purchasedAt, store):
                guard bought[purchase] == nil else { continue }
                bought[purchase] = Bought(item: item, quantity: Decimal(string: quantity.description)!, price: price, store: store,
                                          time: purchasedAt ?? recorded.at, seq: recorded.seq, storeName: store.flatMap { storeNames[$0] })
            case let .purchaseReverted(purchase): bought[purchase] = nil
            default: break
            }
        }
        return bought
    }

    /// Spend and count per store (nil: none named), as `stats` gives them.
    static func storeTotals(_ events: ArraySlice<RecordedEvent>) -> [StoreID?: (purchases: Int, spend: Int)] {
        var totals: [StoreID?: (purchases: Int, spend: Int)] = [:]
        for b in purchases(events).values {
            var t = totals[b.store] ?? (0, 0)
            t.purchases += 1
            t.spend += b.price.map { cost(b.quantity, $0) } ?? 0
            totals[b.store] = t
        }
        return totals
    }

    /// The prices view's rows, unsorted: (item, store) → last price and time, lowest and highest in the year, count.
    static func prices(_ events: ArraySlice<RecordedEvent>, state: ShopState) -> [String: String] {
        guard let now = events.last?.at else { return [:] }
        let yearAgo = now.millisecondsSince1970 - 365 * 86_400_000
        var rows: [String: (last: Bought, low: Int?, high: Int?, count: Int)] = [:]
        for b in purchases(events).values.sorted(by: { ($0.time, $0.seq) < ($1.time, $1.seq) }) {
            guard let price = b.price, state.items[b.item]?.isDeleted == false else { continue }
            let key = "\(b.item) \(b.store?.description ?? "none")"
            var row = rows[key] ?? (b, nil, nil, 0)
            row.last = b
            row.count += 1
            if b.time.millisecondsSince1970 >= yearAgo { row.low = min(row.low ?? price, price); row.high = max(row.high ?? price, price) }
            rows[key] = row
        }
        return rows.mapValues { "\($0.last.price!) \($0.last.time) \($0.low.map(String.init) ?? "-") \($0.high.map(String.init) ?? "-") \($0.count)" }
    }

    static func shown(_ view: PricesView) -> [String: String] {
        var rows: [String: String] = [:]
        for item in view.items {
            for row in item.stores {
                rows["\(item.item) \(row.store?.description ?? "none")"] =
                    "\(row.lastUnitPrice) \(row.lastPurchased) \(row.lowest.map(String.init) ?? "-") \(row.highest.map(String.init) ?? "-") \(row.purchases)"
            }
            // The cheapest is a store whose last price is the lowest of the item's.
            let lowest = item.stores.map(\.lastUnitPrice).min()
            #expect(item.stores.first { $0.store == item.cheapest }?.lastUnitPrice == lowest, "\(item.name)")
        }
        return rows
    }

    @Test("random histories with stores, units, barcodes and decimals: prices, spend per store and the audit's stores as the model has them, now and as of a point", arguments: [81, 82, 83] as [UInt64])
    func viewsEqualTheModel(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 700)
        let events = try JournalReader.readAll(path: journal.path)
        var views = HouseholdViews()
        var storesSeen = 0, decimalsSeen = 0, pricedRows = 0
        for (index, recorded) in events.enumerated() {
            views.apply(recorded)
            if case let .itemPurchased(_, _, _, quantity, _, _, _, store) = recorded.event {
                if store != nil { storesSeen += 1 }
                if quantity.whole == nil { decimalsSeen += 1 }
            }
            guard index % 20 == 19 || index == events.count - 1 else { continue }
            let prefix = events[...index]
            let model = Self.prices(prefix, state: views.state)
            #expect(Self.shown(PricesView(views)) == model, "prices as of seq \(recorded.seq)")
            pricedRows += model.count
            let stats = StatsView(views)
            let totals = Self.storeTotals(prefix)
            if views.state.stores.isEmpty {
                #expect(stats.stores == nil)
            } else {
                #expect(Dictionary(uniqueKeysWithValues: (stats.stores ?? []).map { ($0.store, "\($0.tally.purchases) \($0.tally.spend)") })
                        == totals.mapValues { "\($0.purchases) \($0.spend)" }, "stores as of seq \(recorded.seq)")
            }
            let bought = Self.purchases(prefix)
            for row in AuditView(views).purchases where !row.isReverted {
                #expect(row.store == bought[row.purchase]?.store && row.storeName == bought[row.purchase]?.storeName, "\(row.purchase)")
                #expect(row.spend == (row.unitPrice.map { Self.cost(bought[row.purchase]!.quantity, $0) } ?? 0))
            }
        }
        #expect(storesSeen > 0 && decimalsSeen > 0 && pricedRows > 0, "the histories buy at stores, by decimals, with prices")
        let middle = events.count / 2
        let asOf = try ViewEngine.views(journal: journal.path, asOf: .seq(middle), useSnapshot: false).0
        #expect(Self.shown(PricesView(asOf)) == Self.prices(events[..<middle], state: asOf.state))
    }
}
