import ShopEvents

extension ViewQuery {
    /// The views a household can show, by their names in the specification.
    ///
    /// ```swift
    /// let name = ViewQuery.Name(rawValue: "list-detail")   // .listDetail
    /// print(name?.needsList == true)                      // true
    /// ```
    public enum Name: String, CaseIterable, Hashable, Sendable {
        case shoppingListByLocation = "shopping-list-by-location"
        case shoppingListByName = "shopping-list-by-name"
        case listDetail = "list-detail"
        case lists
        case deletedLists = "deleted-lists"
        case locations
        case allItemsByName = "all-items-by-name"
        case allItemsByPurchaseDate = "all-items-by-purchase-date"
        case audit
        case stats
        case shareText = "share-text"
        case members
        case due
        case prices
        case suggestions
        case stores
        case household
        case item

        /// Other names a view answers to.
        public static let aliases: [String: Name] = ["soft-deleted-lists": .deletedLists, "share": .shareText]

        /// The views of one list (`list`: the first of the lists view when none is given).
        public var needsList: Bool { [.shoppingListByLocation, .shoppingListByName, .listDetail, .shareText].contains(self) }

        /// How much of the purchase history the view needs folded: statistics, the
        /// items' last purchases, due, prices, suggestions and stores the totals; the item
        /// view its purchases' records; the others only which list entries are bought
        /// (the command line's audit streams the journal, and these views fold none).
        package var history: PurchaseHistory.Depth {
            switch self {
            case .audit: .none       // the views say where the history ends; the audit streams the journal
            case .allItemsByName, .allItemsByPurchaseDate, .stats, .due, .prices, .suggestions, .stores: .totals
            case .item: .records
            default: .entries
            }
        }
    }
}
