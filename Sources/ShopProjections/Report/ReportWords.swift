/// The language a household report is written in: `shop-replay report --lang de`, the hub's
/// `GET …/report?lang=de`, the web app's report in the app's language. English unless asked.
public enum ReportLanguage: String, CaseIterable, Sendable {
    case english = "en"
    case german = "de"
}

/// The report's words in its language: each text given in both at the place it is said (so a
/// sentence and its translation are read together), the numbers' separators, and the names of
/// weekdays and months in the calendar.
struct ReportWords: Sendable {
    let language: ReportLanguage

    /// `english`, or `german` in a German report.
    func say(_ english: String, _ german: String) -> String { language == .german ? german : english }

    /// `1 purchase`, `2 purchases` / `1 Einkauf`, `2 Einkäufe`: a number and its noun in agreement.
    func counted(_ n: Int, _ english: String, _ german: (one: String, other: String)) -> String {
        language == .german ? "\(n) \(n == 1 ? german.one : german.other)" : ShopProjections.counted(n, english)
    }

    /// The separator of thousands and of the minor unit: `1,234.56` / `1.234,56`.
    var separators: (thousands: String, decimal: String) { language == .german ? (".", ",") : (",", ".") }

    /// Monday, Wednesday and Friday as the calendar labels its rows.
    var weekdays: [String] { language == .german ? ["Mo", "Mi", "Fr"] : ["Mon", "Wed", "Fri"] }

    var months: [String] {
        language == .german ? ["Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"]
            : ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    }
}
