import ShopEvents

extension ViewQuery {
    /// What the query's names mean in a household's views: the one lookup of
    /// `shop-replay view` and the hub.
    ///
    /// ```swift
    /// let found = try ViewQuery(view: .prices, item: "milk").resolve(views)
    /// print(found.item.map(\.description) ?? "every item")
    /// ```
    public struct Resolved: Hashable, Sendable {
        /// The list of a list view (the first of the lists view when none was named), or suggestions' list.
        public var list: ListID?
        public var member: String?
        public var store: StoreID?
        public var item: ItemID?
    }

    /// Looks the query's names up: lists (deleted ones too), a live store, an item (a live one for
    /// prices; deleted ones too for the item view), a member of a closed household.
    public func resolve(_ views: some StateFold) throws(ViewQueryError) -> Resolved {
        let state = views.state
        func found<T>(_ body: () throws(RuleViolation) -> T) throws(ViewQueryError) -> T {
            do { return try body() } catch { throw ViewQueryError(error) }
        }
        var resolved = Resolved()
        if let list {
            resolved.list = try found { () throws(RuleViolation) in try state.find(list: list, in: .includingDeleted) }
        } else if view.needsList {
            guard let first = ListsView(views).lists.first else {
                throw ViewQueryError(.noList, "the household has no lists yet\(views.asOf > 0 ? " (as of seq \(views.asOf))" : "")")
            }
            resolved.list = first.id
        }
        if let member {
            guard state.isOpen || state.member(named: member) != nil else {
                let names = state.members.map(\.name)
                throw ViewQueryError(.unknownMember, "unknown_member: --for \"\(Self.bounded(member))\" is not a member; the members are \(names.joined(separator: ", "))")
            }
            resolved.member = member
        }
        if let store { resolved.store = try found { () throws(RuleViolation) in try state.find(store: store, in: .live) } }
        if let item {
            let scope: ShopState.Scope = view == .prices ? .live : .includingDeleted
            resolved.item = try found { () throws(RuleViolation) in try state.find(item: item, in: scope) }
        }
        return resolved
    }

    /// What due, suggestions and household count to (docs/VIEWS.md): `now`, else with an
    /// `asOf` the time of the last event shown, else `clock`; and where it came from, for a text.
    public func now(_ views: some StateFold, clock: Timestamp) throws(ViewQueryError) -> (time: Timestamp, source: String) {
        if let now {
            guard let time = now.startTime(in: views.calendar) else { throw ViewQueryError(.badOption, "--now names a day the household's calendar has not") }
            return (time, "--now")
        }
        if asOf != .end, let time = views.asOfTime { return (time, "the time of seq \(views.asOf)") }
        return (clock, "the clock")
    }

    /// The view's JSON, its fold from `source` (``ViewFoldSource``: the kind of fold each view is built
    /// from, the compiler checking it has what the view reads): ``HouseholdViews``, the hub's and a
    /// ``HouseholdModel``'s, has every projection; `clock` the time now.
    /// `index`: the suggestions' index of the same views, kept by a caller that asks often (else built for this answer).
    public func json<Source: ViewFoldSource>(_ source: Source, clock: Timestamp, suggestions index: SuggestionIndex? = nil) throws(Source.Failure) -> JSONValue {
        /// The fold and the names the query gives, looked up in it.
        func resolved<Fold: StateFold>(_ views: Fold) throws(Source.Failure) -> (Fold, Resolved) {
            do { return (views, try resolve(views)) } catch { throw Source.failure(error) }
        }
        func now(_ views: some StateFold) throws(Source.Failure) -> Timestamp {
            do { return try self.now(views, clock: clock).time } catch { throw Source.failure(error) }
        }
        // reason (each `!` below): `resolve` found the list in `views.state` (deleted ones too), and each list view has such a list.
        switch view {
        case .shoppingListByLocation, .shoppingListByName:
            let (views, found) = try resolved(source.presentFold())
            let grouping: ShoppingListView.Grouping = view == .shoppingListByName ? .byName : .byLocation
            // reason: as above
            return ShoppingListView(views, list: found.list!, grouping: grouping, for: found.member, store: found.store,
                                    shopper: found.member ?? shopper)!.json
        case .listDetail:
            let (views, found) = try resolved(source.presentFold())
            return ListDetailView(views, list: found.list!)!.json   // reason: as above
        case .shareText:
            let (views, found) = try resolved(source.presentFold())
            let list = found.list!   // reason: as above
            let text = ShoppingListView.shareText(views, list: list, for: found.member, shopper: found.member ?? shopper)!   // reason: as above
            let name = views.state.lists[list]?.name ?? list.description
            return .object([("view", "share-text"), ("asOf", .int(views.asOf)),
                            ("list", .object([("id", .string(list.description)), ("name", .string(name))])), ("text", .string(text))])
        case .lists: return ListsView(try resolved(source.presentFold()).0).json
        case .deletedLists: return DeletedListsView(try resolved(source.presentFold()).0).json
        case .locations: return LocationsView(try resolved(source.presentFold()).0).json
        case .members: return MembersView(try resolved(source.presentFold()).0).json
        case .household:
            let (views, found) = try resolved(source.presentFold())
            return HouseholdView(views, now: try now(views), shopper: found.member ?? shopper).json
        case .allItemsByName: return ItemsByNameView(try resolved(source.statisticsFold()).0).json
        case .allItemsByPurchaseDate: return ItemsByPurchaseDateView(try resolved(source.statisticsFold()).0).json
        case .due:
            let (views, _) = try resolved(source.statisticsFold())
            return DueView(views, now: try now(views)).json
        case .prices:
            let (views, found) = try resolved(source.statisticsFold())
            return PricesView(views, item: found.item).json
        case .stores: return StoresView(try resolved(source.statisticsFold()).0).json
        case .suggestions:
            let (views, found) = try resolved(source.statisticsFold())
            let now = try now(views)
            let index = index ?? SuggestionIndex(views)
            // reason: `resolve` found the list, deleted ones too: the view has it.
            return SuggestionsView(views, index: index, list: found.list, prefix: prefix ?? "", limit: limit ?? SuggestionsView.defaultLimit, now: now)!.json
        case .stats: return StatsView(try resolved(source.totalsFold()).0).json
        case .audit: return AuditView(try resolved(source.householdViews()).0).json
        case .item:
            let (views, found) = try resolved(source.householdViews())
            return ItemView(views, item: found.item!)!.json   // reason: the item view needs --item, and `resolve` found it
        }
    }

    /// The view's JSON as `shop-replay view NAME --json` prints it, in pieces to `sink`: pretty, with a
    /// newline, `extra` keys last (a replica's `pending`, given once the fold is read). The statistics are written a row at a time.
    public func write<Source: ViewFoldSource>(_ source: Source, clock: Timestamp, suggestions index: SuggestionIndex? = nil,
                                              adding extra: @autoclosure () -> [(String, JSONValue)] = [], to sink: ([UInt8]) -> Void) throws(Source.Failure) {
        if view == .stats {
            let views = try source.totalsFold()
            StatsView.writeJSON(of: views, adding: extra(), to: sink)
            return
        }
        var value = try json(source, clock: clock, suggestions: index)
        let extra = extra()
        if !extra.isEmpty, case let .object(pairs) = value { value = .object(pairs + extra) }
        value.write(pretty: true, terminator: 0x0A, to: sink)
    }

    /// ``write(_:clock:suggestions:adding:to:)``'s bytes, whole.
    public func bytes<Source: ViewFoldSource>(_ source: Source, clock: Timestamp, suggestions index: SuggestionIndex? = nil) throws(Source.Failure) -> [UInt8] {
        var out: [UInt8] = []
        try write(source, clock: clock, suggestions: index) { out += $0 }
        return out
    }
}
