import ShopEvents

/// One view asked for by its name and options, as `shop-replay view NAME`
/// and the hub's `GET /v1/households/{H}/views/{NAME}` ask (SPEC sections 5
/// and 12): the one way from a name and options to a view's JSON. The
/// options are checked against the view when the query is made
/// (`bad_option`); the names in them (lists, stores, items, members) are
/// looked up in the views when it is answered (``ViewQueryError``).
///
/// ```swift
/// let query = try ViewQuery(name: "suggestions", options: ["prefix": "mi", "limit": "5"])
/// let json = try query.json(HouseholdViews(), clock: Timestamp("2026-11-26T10:00:00.000Z")!)
/// _ = json
/// ```
public struct ViewQuery: Hashable, Sendable {
    public var view: Name
    /// The list views' list, or the list whose unbought items suggestions leave out: an id or a name.
    public var list: String?
    /// `for`: the shopping list views and share-text show that member's entries and nobody's, following
    /// that member's running trip; household's ``HouseholdView/trip`` is that member's.
    public var member: String?
    /// Who is asking (the tool's actor, the device's actor over HTTP): whose running trip the list by
    /// location, share-text and household follow where no `for` is given. Not an option of its own.
    public var shopper: String?
    /// The prices of one item, or the item the item view shows: an id, a name or a barcode.
    public var item: String?
    /// shopping-list-by-location in that live store's order: an id or a name.
    public var store: String?
    /// What suggestions match, and how many they offer.
    public var prefix: String?
    public var limit: Int?
    /// What due, suggestions and household count days and time to, rather than the clock.
    public var now: ViewTime?
    public var asOf: ViewAsOf

    /// The largest `limit`.
    public static let maxLimit = 100_000

    /// The query, its options checked against the view (`bad_option`).
    public init(view: Name, list: String? = nil, member: String? = nil, item: String? = nil, store: String? = nil,
                prefix: String? = nil, limit: Int? = nil, now: ViewTime? = nil, asOf: ViewAsOf = .end, shopper: String? = nil) throws(ViewQueryError) {
        self.view = view; self.list = list; self.member = member; self.item = item; self.store = store; self.shopper = shopper
        self.prefix = prefix; self.limit = limit; self.now = now; self.asOf = asOf
        try check()
    }

    /// The query from a view's name (or an alias: `soft-deleted-lists`, `share`) and options as text, keyed
    /// as the hub's query parameters are: `list`, `for`, `item`, `store`, `prefix`, `limit`, `now`, `as-of`.
    /// An unknown name is `unknown_view`; a key not among these, or a value that does not parse, `bad_option`.
    public init(name: String, options: [String: String], shopper: String? = nil) throws(ViewQueryError) {
        guard let view = Name(rawValue: name) ?? Name.aliases[name] else {
            throw ViewQueryError(.unknownView, "there is no view \"\(Self.bounded(name))\"; expected one of \(Name.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let unknown = options.keys.sorted().first(where: { !Self.optionNames.contains($0) }) {
            throw ViewQueryError(.badOption, "there is no option \"\(Self.bounded(unknown))\"; the options are \(Self.optionNames.joined(separator: ", "))")
        }
        var limit: Int?
        if let text = options["limit"] {
            guard let value = Int(text), (1...Self.maxLimit).contains(value) else {
                throw ViewQueryError(.badOption, "limit expects a whole number from 1 to \(Self.maxLimit), not \"\(Self.bounded(text))\"")
            }
            limit = value
        }
        var now: ViewTime?
        if let text = options["now"] {
            guard let time = ViewTime.parse(text) else {
                throw ViewQueryError(.badOption, "now expects a time such as 2026-03-01T18:00:00.000Z or a day 2026-03-01, not \"\(Self.bounded(text))\"")
            }
            now = time
        }
        var asOf = ViewAsOf.end
        if let text = options["as-of"] {
            guard let parsed = ViewAsOf.parse(text) else {
                throw ViewQueryError(.badOption, "as-of expects an event number (seq) or a time such as 2026-03-01T18:00:00.000Z or 2026-03-01, not \"\(Self.bounded(text))\"")
            }
            asOf = parsed
        }
        try self.init(view: view, list: options["list"], member: options["for"], item: options["item"], store: options["store"],
                      prefix: options["prefix"], limit: limit, now: now, asOf: asOf, shopper: shopper)
    }

    /// The options' keys, as the hub's query parameters name them.
    public static let optionNames = ["list", "for", "item", "store", "prefix", "limit", "now", "as-of"]

    /// `bad_option` for an option the view does not take, or a view that needs one not given.
    private func check() throws(ViewQueryError) {
        func refuse(_ message: String) -> ViewQueryError { ViewQueryError(.badOption, message) }
        if list != nil, !view.needsList, view != .suggestions { throw refuse("--list is for the list views, not \(view.rawValue)") }
        if member != nil, ![.shoppingListByLocation, .shoppingListByName, .shareText, .household].contains(view) {
            throw refuse("--for is for the shopping list views, share-text and household, not \(view.rawValue)")
        }
        if item != nil, ![.prices, .item].contains(view) { throw refuse("--item is for the prices and item views, not \(view.rawValue)") }
        if item == nil, view == .item { throw refuse("the item view shows one item: give --item ID|NAME|BARCODE") }
        if store != nil, view != .shoppingListByLocation { throw refuse("--store is for shopping-list-by-location, not \(view.rawValue)") }
        if now != nil, ![.due, .suggestions, .household].contains(view) {
            throw refuse("--now is for the due and suggestions views, not \(view.rawValue)")   // and household's, which the help says
        }
        if prefix != nil || limit != nil, view != .suggestions {
            throw refuse("\(prefix != nil ? "--prefix" : "--limit") is for the suggestions view, not \(view.rawValue)")
        }
        if let limit, !(1...Self.maxLimit).contains(limit) { throw refuse("--limit expects a whole number from 1 to \(Self.maxLimit), not \(limit)") }
    }

    /// What a client sent, as a message names it: its first 64 characters, and `…` if there were more.
    static func bounded(_ text: String) -> String { text.count > 64 ? String(text.prefix(64)) + "…" : text }
}
