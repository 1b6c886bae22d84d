import ShopEvents

extension PurchaseTotals {
    /// An item's totals and its first and last (non-reverted) purchase times.
    public struct ItemTally: Hashable, Sendable {
        public var tally = Tally()
        // `first` and `last` in milliseconds, `Int64.min` for none (no time the journal can hold):
        // two words where two optionals take four, which leaves room for `deletedName` in the same 56 bytes.
        private var firstMilliseconds = Int64.min
        private var lastMilliseconds = Int64.min
        /// A settling fold's (``SettledStatistics``): the
        /// item's last name once it was deleted, kept here beside its totals
        /// rather than in a table of its own (its state no longer holds the item).
        var deletedName: String?

        public var first: Timestamp? {
            get { firstMilliseconds == .min ? nil : Timestamp(millisecondsSince1970: firstMilliseconds) }
            set { firstMilliseconds = newValue?.millisecondsSince1970 ?? .min }
        }

        public var last: Timestamp? {
            get { lastMilliseconds == .min ? nil : Timestamp(millisecondsSince1970: lastMilliseconds) }
            set { lastMilliseconds = newValue?.millisecondsSince1970 ?? .min }
        }

        init(tally: Tally = Tally(), first: Timestamp? = nil, last: Timestamp? = nil) {
            self.tally = tally
            self.first = first
            self.last = last
        }

        /// (last − first) / (purchases − 1), in days: the mean interval between purchases of the
        /// statistics and of the due view; `nil` below two purchases.
        public var meanIntervalDays: Double? {
            guard tally.purchases > 1, firstMilliseconds != .min, lastMilliseconds != .min else { return nil }
            return Double(lastMilliseconds - firstMilliseconds) / 86_400_000 / Double(tally.purchases - 1)
        }

        /// Counts a purchase in, bought at `time`.
        mutating func add(quantity: Quantity, spend: Int, at time: Timestamp) {
            tally.add(quantity: quantity, spend: spend, sign: 1)
            let at = time.millisecondsSince1970
            if firstMilliseconds == .min || at < firstMilliseconds { firstMilliseconds = at }
            if lastMilliseconds == .min || at > lastMilliseconds { lastMilliseconds = at }
        }

        /// Totals and times; a settling fold's ``deletedName`` is where it keeps a name, not part of the value.
        public static func == (a: Self, b: Self) -> Bool {
            a.tally == b.tally && a.firstMilliseconds == b.firstMilliseconds && a.lastMilliseconds == b.lastMilliseconds
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(tally)
            hasher.combine(firstMilliseconds)
            hasher.combine(lastMilliseconds)
        }
    }
}
