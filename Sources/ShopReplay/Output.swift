import Foundation
import ShopEvents

/// Where results go: aligned text for people, or JSON for machines.
struct Output {
    let json: Bool

    func line(_ text: String = "") { print(text) }

    func emit(_ value: JSONValue) { print(value.text(pretty: true)) }

    /// One compact JSON object per line (apply).
    func emitLine(_ value: JSONValue) { print(value.text()) }
}

/// Columns padded to their widest cell; numbers right-aligned.
struct Table {
    var headers: [String]
    var rows: [[String]] = []
    var rightAligned: Set<Int> = []

    init(_ headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    mutating func add(_ cells: [String]) { rows.append(cells) }

    func render(indent: String = "") -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { cells in
            indent + cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: max(0, widths[column] - cell.count))
                return rightAligned.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }
}

enum Format {
    /// Minor units as a decimal amount: 249 → "2.49".
    static func money(_ minor: Int?) -> String {
        guard let minor else { return "—" }
        let sign = minor < 0 ? "-" : ""
        let value = abs(minor)
        return "\(sign)\(value / 100).\(value % 100 < 10 ? "0" : "")\(value % 100)"
    }

    static func money(_ minor: Int, _ currency: String?) -> String {
        money(minor) + (currency.map { " \($0)" } ?? "")
    }

    /// A time for people: `2026-03-01 18:04` (UTC, as recorded).
    static func time(_ time: Timestamp?) -> String {
        guard let time else { return "—" }
        let text = time.description
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func duration(seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? "\(total / 3600) h \(total % 3600 / 60) min" : "\(total / 60) min \(total % 60) s"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
