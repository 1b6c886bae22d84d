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
        // An empty path names no file: it would be read as the working folder, and a lock beside it written there.
        if value == "", ["PATH", "FILE", "DIR"].contains(valueName) {
            throw UsageError(message: "\(name) needs a \(valueName.lowercased()), not an empty one: \(name) \(valueName)")
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
            throw UsageError(message: "\(command) has no option \(first.prefix { $0 != "=" })")
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

/// A time given on the command line (``ViewTime``: an instant, or a day of
/// the household's time zone), with the tool's usage errors.
typealias TimeArgument = ViewTime

extension ViewTime {
    /// The instant, or the first millisecond of the day in `calendar`'s zone.
    func start(in calendar: HouseholdCalendar) throws(UsageError) -> Timestamp {
        guard let start = startTime(in: calendar) else { throw UsageError(message: "\(dayText) is not a day of the calendar") }
        return start
    }

    /// The instant, or the first millisecond after the day in `calendar`'s zone.
    func end(in calendar: HouseholdCalendar) throws(UsageError) -> Timestamp {
        guard let end = endTime(in: calendar) else { throw UsageError(message: "\(dayText) is not a day of the calendar") }
        return end
    }

    private var dayText: String {
        switch self {
        case let .instant(time): time.description
        case let .day(y, m, d): "\(y)-\(m)-\(d)"
        }
    }

    /// `--from`'s start and `--to`'s end in `calendar`'s zone; a usage error
    /// when the range is empty (the end not after the start), which no
    /// purchase could be in and no period runs backwards through.
    static func range(from: TimeArgument?, to: TimeArgument?, in calendar: HouseholdCalendar) throws(UsageError) -> (start: Timestamp?, end: Timestamp?) {
        let (start, end) = (try from?.start(in: calendar), try to?.end(in: calendar))
        if let start, let end, start >= end {
            throw UsageError(message: "--from \(Format.time(start, calendar)) is not before --to's end \(Format.time(end, calendar)): no purchase could be in that range")
        }
        return (start, end)
    }
}

/// `--as-of SEQ|TIME` (``ViewAsOf``), resolved once the household's time zone is known.
typealias AsOf = ViewAsOf

extension ViewAsOf {
    static let help = "  --as-of SEQ|TIME the views as of event SEQ, or of a time (2026-03-01T18:00:00.000Z, any ISO 8601 time,\n                   or a day 2026-03-01: its end, in the household's time zone)"

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> AsOf {
        guard let text = try arguments.option("--as-of", "SEQ|TIME") else { return .end }
        guard let asOf = ViewAsOf.parse(text) else {
            throw UsageError(message: "--as-of expects an event number (seq) or a time such as 2026-03-01T18:00:00.000Z or 2026-03-01, not \"\(text)\"")
        }
        return asOf
    }

    /// Where replay stops; a day ends with its last millisecond in the household's time zone.
    func stop(calendar: HouseholdCalendar) throws(UsageError) -> ReplayStop {
        guard let stop = replayStop(calendar: calendar) else {
            throw UsageError(message: "--as-of names a day that is not a day of the household's calendar")
        }
        return stop
    }
}

/// The household's calendar, read from the journal's first event (the
/// household is always created by the first command); UTC before there is one.
func householdCalendar(journal path: String) -> HouseholdCalendar {
    guard let reader = try? JournalReader(path: path, verifyChain: false),
          case let .householdCreated(_, _, _, timeZone)? = (try? reader.next())??.event else { return .utc }
    return HouseholdCalendar(timeZone: timeZone)
}

/// Finds lists, items and locations by id or by name, deleted ones too
/// (``ShopState/find(item:in:)``); a name or id that is not there is a usage error.
enum Lookup {
    static func list(_ text: String, in state: ShopState) throws(UsageError) -> ListID {
        do { return try state.find(list: text, in: .includingDeleted) } catch { throw UsageError(message: error.message) }
    }

    static func item(_ text: String, in state: ShopState, scope: ShopState.Scope = .includingDeleted) throws(UsageError) -> ItemID {
        do { return try state.find(item: text, in: scope) } catch { throw UsageError(message: error.message) }
    }

    /// `--store`: a live store for a view's order; a deleted one too for a question about the past (history, audit).
    static func store(_ text: String, in state: ShopState, scope: ShopState.Scope = .includingDeleted) throws(UsageError) -> StoreID {
        do { return try state.find(store: text, in: scope) } catch { throw UsageError(message: error.message) }
    }

    static func location(_ text: String, in state: ShopState) throws(UsageError) -> LocationID {
        do { return try state.find(location: text, in: .includingDeleted) } catch { throw UsageError(message: error.message) }
    }
}
