import Foundation

/// The report's charts, written by hand: SVG for the month columns and the
/// calendar, HTML bars (which reflow on a phone) for rankings. Every chart has
/// a title and a text equivalent; colour never carries meaning alone (every
/// bar has its number written beside it, every calendar day its title).
enum Chart {
    /// Vertical columns with the amount written above each and the label under it.
    static func columns(id: String, title: String, description: String, bars: [(label: String, value: Int, text: String)]) -> String {
        let column = 84.0, left = 8.0, top = 26.0, plot = 180.0, bottom = 26.0
        let width = max(320, left * 2 + column * Double(bars.count))
        let height = top + plot + bottom
        let largest = Double(max(bars.map(\.value).max() ?? 0, 1))
        var svg = "<div class=\"scroll\"><svg class=\"chart columns\" id=\"\(id)\" role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\">"
        svg += "<title id=\"\(id)-title\">\(escape(title))</title><desc id=\"\(id)-desc\">\(escape(description))</desc>"
        svg += "<line class=\"axis\" x1=\"\(left)\" y1=\"\(top + plot)\" x2=\"\(width - left)\" y2=\"\(top + plot)\"/>"
        for (index, bar) in bars.enumerated() {
            let h = max(bar.value > 0 ? 1 : 0, (Double(max(bar.value, 0)) / largest * plot).rounded())
            let x = left + Double(index) * column
            let center = x + column / 2
            svg += "<g><title>\(escape(bar.label)): \(escape(bar.text))</title>"
            svg += "<rect class=\"bar\" x=\"\(fmt(x + 8))\" y=\"\(fmt(top + plot - h))\" width=\"\(fmt(column - 16))\" height=\"\(fmt(h))\" rx=\"2\"/>"
            svg += "<text class=\"value\" x=\"\(fmt(center))\" y=\"\(fmt(top + plot - h - 6))\" text-anchor=\"middle\">\(escape(bar.text))</text>"
            svg += "<text class=\"label\" x=\"\(fmt(center))\" y=\"\(fmt(top + plot + 18))\" text-anchor=\"middle\">\(escape(bar.label))</text></g>"
        }
        return svg + "</svg></div>"
    }

    /// One horizontal bar: its label, value, and the value written out.
    typealias Bar = (label: String, value: Int, text: String)

    /// Horizontal bars as HTML: a ranked list, each with its label and number written out.
    ///
    /// Every row has the same columns (the value column `valueWidth`
    /// characters wide, not as wide as its own text), so every track has one
    /// length and a bar's length is its value on the chart's one scale:
    /// `scale` is a full track (the largest value, or the largest of the
    /// charts compared with this one). Charts side by side get the same
    /// `valueWidth` (``valueWidth(_:)`` of all their bars), so their tracks
    /// are of one length too.
    static func bars(id: String, title: String, bars: [Bar], scale: Int? = nil, valueWidth: Int? = nil) -> String {
        let largest = Double(max(scale ?? bars.map(\.value).max() ?? 0, 1))
        var html = "<figure class=\"hbars\" id=\"\(id)\"><figcaption>\(escape(title))</figcaption><ol style=\"--value:\(valueWidth ?? Self.valueWidth([bars]))ch\">"
        for bar in bars {
            let share = Double(max(bar.value, 0)) / largest * 100
            // A fill is at least 2 px wide, so that a small value shows; nothing shows nothing.
            let fill = bar.value > 0 ? "<span class=\"fill\" style=\"width:\(fmt(share))%\"></span>" : ""
            html += "<li><span class=\"label\">\(escape(bar.label))</span><span class=\"track\" aria-hidden=\"true\">\(fill)</span><span class=\"value\">\(escape(bar.text))</span></li>"
        }
        return html + "</ol></figure>"
    }

    /// The characters of the longest value written beside any of these bars: the width of their charts' value column.
    static func valueWidth(_ charts: [[Bar]]) -> Int {
        charts.joined().map(\.text.count).max() ?? 0
    }

    /// The largest value of these charts: a full track when they are drawn on one scale.
    static func scale(_ charts: [[Bar]]) -> Int {
        charts.joined().map(\.value).max() ?? 0
    }

    /// A calendar of shopping days like a contribution graph: a column per
    /// week (Monday first), a cell per day, darker the more was bought. Each
    /// cell's title says the day and what was bought.
    static func calendar(id: String, days: [(day: String, purchases: Int, text: String)], words: ReportWords = ReportWords(language: .english)) -> String {
        guard let first = days.first.flatMap({ civilDay($0.day) }), let last = days.last.flatMap({ civilDay($0.day) }) else { return "" }
        let byDay = Dictionary(days.map { ($0.day, $0) }, uniquingKeysWith: { a, _ in a })
        let start = first - Int64(weekday(first))          // the Monday on or before the first day
        let weeks = Int((last - start) / 7) + 1
        let cell = 14.0, gap = 3.0, left = 30.0, top = 18.0
        let most = max(days.map(\.purchases).max() ?? 1, 1)
        // The purchases a day each shade stands for; with fewer than four at most, some shades stand for none and are left out.
        let shades = (1...4).map { n in (level: n, lower: (n - 1) * most / 4 + 1, upper: n * most / 4) }.filter { $0.lower <= $0.upper }
        let range = shades.map { $0.lower == $0.upper ? "\($0.upper)" : "\($0.lower)–\($0.upper)" }.joined(separator: ", ")
        let legend = words.say("purchases a day: \(range)", "Einkäufe am Tag: \(range)")
        let legendWidth = left + Double(1 + shades.count) * (cell + gap) + 4 + Double(legend.count) * 5.6
        let width = max(left + Double(weeks) * (cell + gap) + 8, legendWidth)
        let legendTop = top + 7 * (cell + gap) + 10
        let height = legendTop + cell + 8
        func level(_ purchases: Int) -> Int { purchases == 0 ? 0 : min(4, max(1, Int((Double(purchases) / Double(most) * 4).rounded(.up)))) }
        // Drawn at most `largest` times its units (cells of 19.6 px, labels of 14 px), however wide the page:
        // a few weeks stay the size of a few weeks; a narrow screen shrinks it (`max-width:100%`).
        let largest = 1.4, units = (width: width.rounded(.up), height: height)
        var svg = "<div class=\"scroll\"><svg class=\"chart calendar\" id=\"\(id)\" role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\" viewBox=\"0 0 \(fmt(units.width)) \(fmt(units.height))\" width=\"\(fmt((units.width * largest).rounded(.up)))\" height=\"\(fmt((units.height * largest).rounded(.up)))\">"
        svg += "<title id=\"\(id)-title\">\(words.say("Calendar of shopping days", "Kalender der Einkaufstage"))</title>"
        svg += "<desc id=\"\(id)-desc\">" + words.say("One square per day, a column per week starting on Monday; the more purchases that day, the darker. \(counted(days.count, "shopping day")); each square's title gives the day, the purchases and the spend.",
                         "Ein Quadrat je Tag, eine Spalte je Woche ab Montag; je mehr Einkäufe an dem Tag, desto dunkler. \(words.counted(days.count, "shopping day", ("Einkaufstag", "Einkaufstage"))); der Titel jedes Quadrats nennt den Tag, die Einkäufe und die Ausgaben.") + "</desc>"
        for (row, name) in zip([0, 2, 4], words.weekdays) {
            svg += "<text class=\"label small\" x=\"0\" y=\"\(fmt(top + Double(row) * (cell + gap) + cell - 3))\">\(name)</text>"
        }
        var lastMonth = ""
        for week in 0..<weeks {
            let x = left + Double(week) * (cell + gap)
            let monday = start + Int64(week * 7)
            // A week belongs to the month of its Sunday, so the first column never crowds the second.
            let monthLabel = String(text(of: monday + 6).prefix(7))
            if monthLabel != lastMonth {
                svg += "<text class=\"label small\" x=\"\(fmt(x))\" y=\"11\">\(monthName(monthLabel, words.months))</text>"
                lastMonth = monthLabel
            }
            for row in 0..<7 {
                let day = monday + Int64(row)
                guard day >= first, day <= last else { continue }
                let key = text(of: day)
                let found = byDay[key]
                let title = found?.text ?? words.say("\(key): no shopping", "\(key): kein Einkauf")
                svg += "<rect class=\"day l\(level(found?.purchases ?? 0))\" x=\"\(fmt(x))\" y=\"\(fmt(top + Double(row) * (cell + gap)))\" width=\"\(fmt(cell))\" height=\"\(fmt(cell))\" rx=\"2\"><title>\(escape(title))</title></rect>"
            }
        }
        // The legend says in numbers what the shades mean.
        svg += "<text class=\"label small\" x=\"0\" y=\"\(fmt(legendTop + cell - 3))\">\(words.say("none", "keine"))</text>"
        var x = left
        for n in [0] + shades.map(\.level) {
            svg += "<rect class=\"day l\(n)\" x=\"\(fmt(x))\" y=\"\(fmt(legendTop))\" width=\"\(fmt(cell))\" height=\"\(fmt(cell))\" rx=\"2\"/>"
            x += cell + gap
        }
        svg += "<text class=\"label small\" x=\"\(fmt(x + 4))\" y=\"\(fmt(legendTop + cell - 3))\">\(legend)</text>"
        return svg + "</svg></div>"
    }

    static func fmt(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// Days since 1970-01-01 of `YYYY-MM-DD`.
    static func civilDay(_ text: String) -> Int64? {
        let parts = text.split(separator: "-").compactMap { Int64($0) }
        guard parts.count == 3 else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = parts[1] <= 2 ? parts[0] - 1 : parts[0]
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = parts[1], d = parts[2]
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    static func weekday(_ days: Int64) -> Int { Int(((days % 7) + 7 + 3) % 7) }

    static func text(of days: Int64) -> String { HouseholdCalendar.dayText(days) }

    static func monthName(_ yearMonth: String, _ names: [String] = ReportWords(language: .english).months) -> String {
        guard let month = Int(yearMonth.suffix(2)), (1...12).contains(month) else { return yearMonth }
        return names[month - 1]
    }
}

extension HouseholdReport {
    /// Light and dark, phone and print; contrast at least WCAG AA (4.5:1 for text).
    static let css = """
    :root{--bg:#ffffff;--text:#1b1f24;--muted:#4a5560;--rule:#d5dae0;--bar:#1f5f99;--track:#e6ebf0;--reverted:#9b1c1c;\
    --l0:#e6ebf0;--l1:#b9d3ea;--l2:#6fa6d6;--l3:#2f72b0;--l4:#0b3d6e;--panel:#f5f7f9}
    @media (prefers-color-scheme:dark){:root{--bg:#14171b;--text:#e9edf1;--muted:#a9b4bf;--rule:#39414a;--bar:#76b4ea;\
    --track:#2a3139;--reverted:#ff9d9d;--l0:#262d35;--l1:#234a6e;--l2:#2f6fa8;--l3:#5a9ee0;--l4:#a8d2ff;--panel:#1b2026}}
    *{box-sizing:border-box}
    body{margin:0;background:var(--bg);color:var(--text);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
    header,main{max-width:62rem;margin:0 auto;padding:0 1.25rem}
    header{padding-top:1.5rem;border-bottom:1px solid var(--rule)}
    h1{font-size:1.7rem;margin:0 0 .25rem}
    h2{font-size:1.3rem;margin:0 0 .75rem}
    h3{font-size:1.05rem;margin:.5rem 0}
    h4{font-size:.95rem;margin:.75rem 0 .25rem;color:var(--muted)}
    .sub,.meta,.note{color:var(--muted);font-weight:normal}
    .sub{font-size:.85em}
    section{padding:1.25rem 0;border-bottom:1px solid var(--rule)}
    .figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;margin:0}
    .figures div{background:var(--panel);border:1px solid var(--rule);border-radius:.5rem;padding:.6rem .8rem}
    .figures dt{color:var(--muted);font-size:.85rem}
    .figures dd{margin:0;font-size:1.35rem;font-weight:600;font-variant-numeric:tabular-nums}
    .pair{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem}
    .scroll{overflow-x:auto}
    svg.chart{display:block;max-width:100%;height:auto}
    svg .bar{fill:var(--bar)}
    svg .axis{stroke:var(--rule);stroke-width:1}
    svg text{fill:var(--text);font-size:12px;font-family:inherit}
    svg text.small{font-size:10px;fill:var(--muted)}
    svg text.value{font-variant-numeric:tabular-nums}
    svg .l0{fill:var(--l0)} svg .l1{fill:var(--l1)} svg .l2{fill:var(--l2)} svg .l3{fill:var(--l3)} svg .l4{fill:var(--l4)}
    figure{margin:0}
    figcaption{color:var(--muted);font-size:.85rem;margin-bottom:.4rem}
    .hbars ol{list-style:none;margin:0;padding:0}
    .hbars li{display:grid;grid-template-columns:minmax(6rem,11rem) 1fr var(--value,auto);align-items:center;gap:.5rem;padding:.15rem 0}
    .hbars .label{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
    .hbars .track{background:var(--track);border-radius:3px;height:.8rem;display:block}
    .hbars .fill{background:var(--bar);border-radius:3px;height:100%;display:block;min-width:2px}
    .hbars .value{font-variant-numeric:tabular-nums;font-size:.9rem}
    .hbars .fill,.figures div,svg rect{-webkit-print-color-adjust:exact;print-color-adjust:exact}
    details{margin-top:.75rem}
    summary{cursor:pointer;color:var(--muted)}
    table{border-collapse:collapse;width:100%;font-size:.9rem}
    th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--rule);vertical-align:top}
    .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
    tr.reverted td{text-decoration:line-through;color:var(--muted)}
    tr.reverted .tag{text-decoration:none;display:inline-block;color:var(--reverted);font-size:.8em;text-transform:uppercase;letter-spacing:.03em}
    tfoot th,tfoot td{font-weight:600;border-bottom:none}
    .list ul{margin:0;padding-left:1.2rem}
    .qty{color:var(--muted);font-variant-numeric:tabular-nums}
    .who{font-size:.85em;color:var(--muted);white-space:nowrap}
    .headline code{font-size:.95rem;word-break:break-all}
    pre{background:var(--panel);border:1px solid var(--rule);border-radius:.4rem;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
    @media (max-width:600px){body{font-size:15px}header,main{padding:0 .8rem}.pair{grid-template-columns:1fr}
    .hbars li{grid-template-columns:minmax(5rem,8rem) 1fr var(--value,auto)}table{font-size:.82rem}}
    @media print{:root{--bg:#fff;--text:#000;--muted:#333;--rule:#bbb;--panel:#fff;--bar:#1f5f99;--track:#e6ebf0;\
    --l0:#e6ebf0;--l1:#b9d3ea;--l2:#6fa6d6;--l3:#2f72b0;--l4:#0b3d6e;--reverted:#9b1c1c}
    body{background:#fff;color:#000;font-size:11pt}header,main{max-width:none;padding:0}
    section{break-before:page;border:none}#summary,#months{break-before:auto}
    .scroll{overflow:visible}tr{break-inside:avoid}}
    """
}
