import ShopEvents

extension ViewQuery {
    /// The views a household can show, by their names in docs/VIEWS.md.
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
    }
}
