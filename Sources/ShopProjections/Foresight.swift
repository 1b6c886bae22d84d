import ShopEvents

/// The purchases a settling fold was told will be reverted
/// (``SettledStatistics``), and how far each has got: their
/// ids sorted, found by halving, beside a byte each for the stage — 17
/// bytes a purchase, where a dictionary takes 23 to 45. Before the search,
/// a fixed 16 KiB table of bits, one set under a hash of each id, turns
/// away in one look almost every purchase that is not among them.
struct Foresight: Hashable, Sendable {
    enum Stage: UInt8, Hashable, Sendable {
        /// Named by a revert, not bought yet.
        case awaited
        /// Bought, and not counted: its revert is still to come.
        case bought
        /// Bought and reverted, as foreseen.
        case reverted
    }

    private static var filterBits: Int { 1 << 17 }
    private var ids: [(UInt64, UInt64)] = []
    private var stages: [Stage] = []
    private var filter: [UInt64] = []

    init(_ reverted: Set<PurchaseID>) {
        guard !reverted.isEmpty else { return }
        ids = reverted.map(\.words).sorted { $0 < $1 }   // sorted as two words: any fixed order serves
        stages = Array(repeating: .awaited, count: ids.count)
        filter = Array(repeating: 0, count: Self.filterBits / 64)
        for id in reverted { let bit = Self.bit(id); filter[bit >> 6] |= 1 << UInt64(bit & 63) }
    }

    private static func bit(_ id: PurchaseID) -> Int { id.fixedHash & (filterBits - 1) }

    /// Where `id` stands among the purchases foreseen, or nil if it is not one.
    func position(of id: PurchaseID) -> Int? {
        guard !ids.isEmpty else { return nil }
        let bit = Self.bit(id)
        guard filter[bit >> 6] & (1 << UInt64(bit & 63)) != 0 else { return nil }
        let key = id.words
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == key ? low : nil
    }

    subscript(position: Int) -> Stage {
        get { stages[position] }
        set { stages[position] = newValue }
    }

    /// Whether a purchase foreseen was bought and its revert has not come.
    var anyBought: Bool { stages.contains(.bought) }

    static func == (a: Self, b: Self) -> Bool {
        a.ids.elementsEqual(b.ids, by: ==) && a.stages == b.stages
    }

    func hash(into hasher: inout Hasher) {
        for (high, low) in ids { hasher.combine(high); hasher.combine(low) }
        hasher.combine(stages)
    }
}
