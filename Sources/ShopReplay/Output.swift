import Foundation
import ShopEvents
import ShopProjections

/// Where results go: aligned text for people, or JSON for machines.
struct Output {
    let json: Bool

    /// Every answer is flushed at once: a program that reads it through a
    /// pipe waits for it (standard output to a pipe is otherwise block-buffered).
    /// A control character other than the newlines that end its lines is
    /// written as an escape: journals written before names were held to the
    /// rule may have a tab, NUL or escape sequence in one.
    func line(_ text: String = "") {
        let visible = text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F })
            ? text.split(separator: "\n", omittingEmptySubsequences: false).map { Limits.visible(String($0)) }.joined(separator: "\n")
            : text
        Output.write(visible + "\n")
    }

    /// A large answer goes out in pieces as it is written (never its whole text in memory), one answer all the same.
    func emit(_ value: JSONValue) { value.write(pretty: true, terminator: 0x0A) { Output.write(bytes: $0) } }

    /// A view: on a sync replica its JSON adds `pending` (commands in the
    /// outbox), and its text says how many there are.
    func view(_ value: JSONValue, pending: Int?, _ text: () -> String) {
        if json {
            guard let pending, case let .object(pairs) = value else { return emit(value) }
            emit(.object(pairs + [("pending", .int(pending))]))
        } else {
            let note = pending.map { $0 == 0 ? "" : "\n\($0) command\($0 == 1 ? "" : "s") pending in the outbox, shown as if accepted (`shop-replay sync` sends them)" } ?? ""
            line(text() + note)
        }
    }

    /// One compact JSON object per line (apply).
    func emitLine(_ value: JSONValue) { Output.write(value.text() + "\n") }

    static func write(_ text: String) { write(bytes: Array(text.utf8)) }

    static func write(bytes all: [UInt8]) {
        fflush(nil)   // anything print() left in the buffer goes first
        var bytes = all[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Foundation.write(1, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }
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

    /// A cell is one line: a control character in it (a name from an old journal) is shown escaped.
    mutating func add(_ cells: [String]) { rows.append(cells.map(Limits.visible)) }

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
    /// A quantity as the list shows it: `×2` for pieces, `1.5 kg` with a unit.
    static func amount(_ quantity: Quantity, _ unit: String?) -> String { unit.map { "\(quantity) \($0)" } ?? "×\(quantity)" }
    /// A purchase id's first 8 hex digits: what text views show, and what
    /// `RevertPurchase` takes (`{"purchase": "1A2B3C4D"}`) while it names one purchase only.
    static func short(_ purchase: PurchaseID) -> String { String(purchase.description.prefix(8)) }

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

    /// A time for people: `2026-03-01 19:04`, in the household's time zone.
    static func time(_ time: Timestamp?, _ calendar: HouseholdCalendar) -> String {
        guard let time else { return "—" }
        return calendar.minute(time)
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
