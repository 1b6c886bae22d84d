import Foundation
import ShopEvents
import ShopProjections

/// `audit --csv` and `stats --csv` (docs/TOOL.md): RFC 4180 CSV with a
/// header row, lines ended by CRLF, a field quoted where it holds a comma, a
/// quote, a CR or an LF (its quotes doubled); amounts as decimals of the
/// household's currency (`2.49`; `249` for yen), times to the second in the
/// household's time zone with their offset (`2026-11-26T10:00:00+01:00`);
/// nothing where there is nothing (an empty field). What a spreadsheet or
/// pandas reads as it is.
struct CSVOutput {
    /// Digits after the decimal point of an amount in `currency`.
    let digits: Int
    let calendar: HouseholdCalendar

    init(currency: String?, calendar: HouseholdCalendar) {
        digits = Self.minorUnitDigits(currency)
        self.calendar = calendar
    }

    /// The header and each row of the audit: the keys and values of its JSON rows, in their order.
    static let auditHeader = ["seq", "event", "purchase", "purchasedAt", "actor", "item", "itemName", "quantity", "unitPrice",
                              "list", "listName", "location", "locationName", "reverted", "store", "storeName"]

    func auditRow(_ r: PurchaseRecord) -> [String] {
        ["\(r.seq)", r.event.description, r.purchase.description, calendar.second(r.purchasedAt), r.actor, r.item.description, r.itemName,
         "\(r.quantity)", amount(r.unitPrice), r.list?.description ?? "", r.listName ?? "", r.location.description, r.locationName,
         r.isReverted ? "true" : "false", r.store?.description ?? "", r.storeName ?? ""]
    }

    /// The header and each row of the statistics per item: its JSON `items` rows.
    static let statsHeader = ["item", "name", "purchases", "quantity", "spend", "first", "last", "meanIntervalDays"]

    func statsRow(_ row: StatsView.ItemRow) -> [String] {
        [row.item.description, row.name, "\(row.tally.purchases)", "\(row.tally.quantity)", amount(row.tally.spend),
         calendar.second(row.first), calendar.second(row.last), row.meanIntervalDays.map { "\($0)" } ?? ""]
    }

    /// Minor units as a decimal of the currency: 249 → `2.49` (2 digits), `249` (0 digits), `0.249` (3 digits); nil → empty.
    func amount(_ minor: Int?) -> String {
        guard let minor else { return "" }
        guard digits > 0 else { return "\(minor)" }
        let scale = (0..<digits).reduce(1) { product, _ in product * 10 }
        let whole = "\(minor.magnitude / UInt(scale))"
        let fraction = "\(minor.magnitude % UInt(scale))"
        return (minor < 0 ? "-" : "") + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// One CSV line, CRLF included.
    static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// A field as RFC 4180 writes it: quoted, its quotes doubled, where it holds a comma, a quote, a CR or an LF.
    static func field(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// ISO 4217's minor-unit digits of the currencies that have other than
    /// two; two for every other code, and without a currency.
    static func minorUnitDigits(_ currency: String?) -> Int {
        switch currency?.uppercased() {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF": 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND": 3
        case "CLF", "UYW": 4
        default: 2
        }
    }
}
