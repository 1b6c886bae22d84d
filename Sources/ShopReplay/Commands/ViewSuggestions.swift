import Foundation
import ShopEvents
import ShopProjections

/// `view suggestions` (docs/VIEWS.md, "Suggestions"): its options and its text.
extension ViewCommand {
    static let suggestionsHelp = """
      --list ID|NAME   suggestions: leave out the items on that list unbought (default: no list)
      --prefix TEXT    suggestions: items whose name, or a word of it, starts with TEXT, ignoring case
                       and diacritics (words: runs of letters and digits); none or empty: every item
      --limit N        suggestions: offer at most N (default \(SuggestionsView.defaultLimit))
    """
}

extension TextViews {
    static func suggestions(_ view: SuggestionsView, currency: String?, calendar: HouseholdCalendar, nowSource: String,
                            prefix: String) -> String {
        var table = Table(["item", "unit", "price", "due", "bought in \(SuggestionsView.recentDays) d"], rightAligned: [2, 4])
        for row in view.items {
            table.add([Limits.visible(row.name), row.unit.map { Limits.visible($0) } ?? "", row.unitPrice.map { Format.money($0, currency) } ?? "",
                       row.due ? "due" : "", "\(row.recentPurchases)"])
        }
        let asked = prefix.isEmpty ? "Every item" : "Items matching \"\(Limits.visible(prefix))\""
        return [header("Suggestions", asOf: view.asOf), "\(asked); days counted to \(Format.time(view.now, calendar)) (\(nowSource))", "",
                view.items.isEmpty ? "Nothing to suggest." : table.render()].joined(separator: "\n")
    }
}
