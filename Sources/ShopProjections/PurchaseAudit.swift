import ShopEvents

/// The audit projection: every purchase in journal order as the audit shows
/// it — who bought what, when, where, at which store and for how much, with
/// the names things had then. Reverted purchases stay, marked. Memory by the
/// history (a record a purchase, about 200 bytes with its names); what
/// ``AuditView``, ``ItemView``'s purchases and the report's audit trail show.
///
/// Folded beside the state, which it reads as it was just before each event
/// (for the names), as ``HouseholdViews`` does.
///
/// ```swift
/// var state = ShopState.initial, audit = PurchaseAudit()
/// for recorded in events {
///     audit.apply(recorded, before: state)
///     state.apply(recorded)
/// }
/// print(audit.records.last?.itemName ?? "nothing bought yet")
/// ```
public struct PurchaseAudit: Hashable, Sendable {
    /// Every purchase, in journal order.
    public internal(set) var records: [PurchaseRecord] = []
    var index: [PurchaseID: Int] = [:]

    public init() {}

    /// The record of a purchase id.
    public func record(_ purchase: PurchaseID) -> PurchaseRecord? { index[purchase].map { records[$0] } }

    /// A purchase event's part of ``apply(_:before:)``: its record. Every purchase event is a
    /// record; of a purchase id bought twice (no legal journal has one: `verify` refuses it) the
    /// index keeps the first, as the state's ledger and the statistics do, so a revert marks the
    /// purchase they take out: found or inserted in one look-up.
    mutating func bought(_ record: PurchaseRecord) {
        Self.keep(&index[record.purchase, default: records.count])
        records.append(record)
    }

    /// A revert's part of ``apply(_:before:)``.
    mutating func reverted(_ purchase: PurchaseID) {
        guard let at = index[purchase] else { return }
        records[at].isReverted = true
    }

    /// Leaves a value where it is: given a dictionary's `[key, default:]`, inserts the default if the key is absent.
    static func keep(_: inout Int) {}

    /// Folds `recorded` in; `state` is the household just before it (for names).
    public mutating func apply(_ recorded: RecordedEvent, before state: borrowing ShopState) {
        switch recorded.event {
        case .itemPurchased:
            if let record = PurchaseRecord(recorded, before: state) { bought(record) }
        case let .purchaseReverted(purchase):
            reverted(purchase)
        default:
            break   // the audit reads only purchases and reverts (names come from the state)
        }
    }
}
