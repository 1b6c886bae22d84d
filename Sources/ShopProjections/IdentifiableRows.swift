import ShopEvents

// View rows a user interface lists (`ForEach(view.lists) { row in … }`): each
// is identified by what it is a row of.
extension ListsView.Row: Identifiable {}
extension DeletedListsView.Row: Identifiable {}
extension LocationsView.Row: Identifiable {}
extension ItemsByNameView.Row: Identifiable {}
extension ItemsByPurchaseDateView.Item: Identifiable {}
extension ListRef: Identifiable {}
extension ItemsByPurchaseDateView.Section: Identifiable {
    /// The day, or "never" for the section of items never purchased.
    public var id: String { day ?? "never" }
}
extension ShoppingListView.Entry: Identifiable {
    public var id: ItemID { item }
}
extension ShoppingListView.Section: Identifiable {
    /// The location, or the list's one section when grouped by name.
    public var id: String { location?.description ?? title }
}
extension ListDetailView.Entry: Identifiable {
    public var id: ItemID { item }
}
extension MembersView.Row: Identifiable {
    public var id: String { member }
}
extension StatsView.ItemRow: Identifiable {
    public var id: ItemID { item }
}
extension StatsView.MonthRow: Identifiable {
    public var id: String { month }
}
extension StatsView.ActorRow: Identifiable {
    public var id: String { actor }
}
extension StatsView.LocationRow: Identifiable {
    public var id: LocationID { location }
}
extension PurchaseRecord: Identifiable {
    /// The purchase's id.
    public var id: PurchaseID { purchase }
}
