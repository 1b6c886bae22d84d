import ShopEvents

/// A read model: a value folded from events, one at a time.
///
/// Every screen of an app is a projection. Applying the events of a journal
/// one by one gives the same value as rebuilding it from scratch, so a view
/// can be kept up to date as events arrive, or computed as of any point.
///
/// ```swift
/// struct PurchaseCount: Projection {
///     var count = 0
///     init() {}
///     mutating func apply(_ recorded: RecordedEvent) {
///         if case .itemPurchased = recorded.event { count += 1 }
///     }
/// }
/// let replayer = Replayer<PurchaseCount>(path: "shop.ndjson")
/// try replayer.catchUp()
/// print(replayer.value.count)
/// ```
public protocol Projection {
    /// The value before any event.
    init()
    /// Folds one event in. Does constant work per event: never a rescan of history.
    mutating func apply(_ recorded: RecordedEvent)
}

/// Where a replay stops.
///
/// ```swift
/// try replayer.catchUp(to: .seq(100))                               // as of event 100
/// try replayer.catchUp(to: .time(Timestamp("2026-01-01T00:00:00.000Z")!))  // as of a time
/// ```
public enum ReplayStop: Hashable, Sendable {
    /// After the last complete line.
    case end
    /// After the event with this `seq` (or the end, if the journal is shorter).
    case seq(Int)
    /// After the last event whose `at` is not later than this time.
    case time(Timestamp)

    /// Whether `recorded` lies beyond this stop.
    func excludes(_ recorded: RecordedEvent) -> Bool {
        switch self {
        case .end: return false
        case let .seq(last): return recorded.seq > last
        case let .time(last): return recorded.at > last
        }
    }
}
