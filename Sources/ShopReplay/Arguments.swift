import Foundation
import ShopEvents
import ShopProjections

/// A mistake in how the tool was called: exit code 2.
struct UsageError: Error {
    var message: String
}

/// A failure the tool reports in one line, with its exit code:
/// 1 verification failed or a command was rejected, 3 I/O or other failure.
struct ToolFailure: Error {
    var message: String
    var exitCode: Int32
}

/// The words after the subcommand's name, taken as the subcommand asks for them.
/// What is left when it is done is an error, never silently ignored.
struct Arguments {
    private var tokens: [String]
    let command: String

    init(_ tokens: [String], command: String) {
        self.tokens = tokens
        self.command = command
    }

    /// `--name`, present or not.
    mutating func flag(_ name: String) -> Bool {
        guard let index = tokens.firstIndex(of: name) else { return false }
        tokens.remove(at: index)
        return true
    }

    /// `--name VALUE` or `--name=VALUE`; the last one wins if given twice.
    mutating func option(_ name: String, _ valueName: String) throws(UsageError) -> String? {
        var value: String?
        while let index = tokens.firstIndex(where: { $0 == name || $0.hasPrefix(name + "=") }) {
            let token = tokens.remove(at: index)
            if token == name {
                guard index < tokens.count, !tokens[index].hasPrefix("--") || tokens[index] == "-" else {
                    throw UsageError(message: "\(name) needs a value: \(name) \(valueName)")
                }
                value = tokens.remove(at: index)
            } else {
                value = String(token.dropFirst(name.count + 1))
            }
        }
        return value
    }

    /// `--name N` as a whole number within `range`.
    mutating func number(_ name: String, _ valueName: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name, valueName) else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(value) else {
            throw UsageError(message: "\(name) expects a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    /// The next word that is not an option.
    mutating func positional() -> String? {
        guard let index = tokens.firstIndex(where: { !$0.hasPrefix("--") || $0 == "-" }) else { return nil }
        return tokens.remove(at: index)
    }

    /// Fails on anything not taken.
    func finish() throws(UsageError) {
        guard let first = tokens.first else { return }
        if first.hasPrefix("--") {
            throw UsageError(message: "\(command) has no option \(first.split(separator: "=").first!)")
        }
        throw UsageError(message: "\(command) does not take \"\(first)\" here")
    }
}

/// The options every subcommand that reads a journal has.
struct JournalOptions {
    var journal: String
    var json: Bool

    static let help = """
      --journal PATH   the journal (default: $SHOP_JOURNAL, else ./shop.ndjson)
      --json           machine-readable JSON instead of aligned text
    """

    init(_ arguments: inout Arguments, defaultJournal: String? = nil) throws(UsageError) {
        let fallback = defaultJournal ?? ProcessInfo.processInfo.environment["SHOP_JOURNAL"].flatMap { $0.isEmpty ? nil : $0 } ?? "shop.ndjson"
        journal = try arguments.option("--journal", "PATH") ?? fallback
        json = arguments.flag("--json")
    }
}

/// `--as-of SEQ|TIME`.
enum AsOf {
    static let help = "  --as-of SEQ|TIME the views as of event SEQ, or of a time (2026-03-01T18:00:00.000Z, any ISO 8601 time, or a day 2026-03-01 meaning its end, UTC)"

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> ReplayStop {
        guard let text = try arguments.option("--as-of", "SEQ|TIME") else { return .end }
        if let seq = Int(text), seq >= 0 { return .seq(seq) }
        if let time = parseTime(text, endOfDay: true) { return .time(time) }
        throw UsageError(message: "--as-of expects an event number (seq) or a time such as 2026-03-01T18:00:00.000Z or 2026-03-01, not \"\(text)\"")
    }

    /// The journal's form, any ISO 8601 date-time, or a day (its start, or with `endOfDay` its last millisecond, UTC).
    static func parseTime(_ text: String, endOfDay: Bool) -> Timestamp? {
        if let time = Timestamp(text) { return time }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return Timestamp(date) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Timestamp(date) }
        if text.count == 10, let start = Timestamp(text + "T00:00:00.000Z") {
            return endOfDay ? start.adding(milliseconds: 86_399_999) : start
        }
        return nil
    }
}

/// Finds lists, items and locations by id or by name (ignoring case, live ones first).
enum Lookup {
    /// A thing as the lookup sees it: its id, name, and whether it was deleted.
    typealias Candidate<Kind: EntityKind> = (id: EntityID<Kind>, name: String, isDeleted: Bool)

    /// By id (which must exist), else by name ignoring case, live things before deleted ones.
    static func find<Kind>(_ text: String, _ noun: String, among all: [Candidate<Kind>], known: (EntityID<Kind>) -> Bool,
                           hint: String = "") throws(UsageError) -> EntityID<Kind> {
        if let id = EntityID<Kind>(text) {
            guard known(id) else { throw UsageError(message: "there is no \(noun) with id \(id)") }
            return id
        }
        let key = text.trimmingCharacters(in: .whitespaces).lowercased()
        let ordered = all.sorted { ($0.isDeleted ? 1 : 0, $0.id) < ($1.isDeleted ? 1 : 0, $1.id) }
        guard let found = ordered.first(where: { $0.name.lowercased() == key }) else {
            throw UsageError(message: "there is no \(noun) named \"\(text)\"\(hint)")
        }
        return found.id
    }

    static func list(_ text: String, in state: ShopState) throws(UsageError) -> ListID {
        let names = state.lists.values.filter { !$0.isDeleted }.map(\.name).sorted()
        return try find(text, "list", among: state.lists.values.map { ($0.id, $0.name, $0.isDeleted) }, known: { state.lists[$0] != nil },
                        hint: names.isEmpty ? "" : "; the lists are \(names.joined(separator: ", "))")
    }

    static func item(_ text: String, in state: ShopState) throws(UsageError) -> ItemID {
        try find(text, "item", among: state.items.values.map { ($0.id, $0.name, $0.isDeleted) }, known: { state.items[$0] != nil })
    }

    static func location(_ text: String, in state: ShopState) throws(UsageError) -> LocationID {
        try find(text, "location", among: state.locations.values.map { ($0.id, $0.name, $0.isDeleted) }, known: { state.locations[$0] != nil },
                 hint: "; the locations are \(state.visitingOrder.compactMap { state.locations[$0]?.name }.joined(separator: ", "))")
    }
}
