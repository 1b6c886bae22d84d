import Foundation
import ShopEvents

/// A time a person gives a view (`--now`, `--as-of`, `--from`, or the hub's
/// query parameters): an instant, or a calendar day, which means a day of the
/// household's time zone (docs/TOOL.md, "Times on the command line").
///
/// ```swift
/// let day = ViewTime.parse("2026-03-01")                 // a day: its start or end in the household's zone
/// let start = day?.startTime(in: .utc)                       // 2026-03-01T00:00:00.000Z
/// ```
public enum ViewTime: Hashable, Sendable {
    case instant(Timestamp)
    case day(year: Int, month: Int, day: Int)

    /// The journal's form, any ISO 8601 date-time, or a day `2026-03-01`; nil for anything else.
    public static func parse(_ text: String) -> ViewTime? {
        if let time = Timestamp(text) { return .instant(time) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return .instant(Timestamp(date)) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return .instant(Timestamp(date)) }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        if text.count == 10, parts.count == 3, parts[0].count == 4, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
           (1...12).contains(m), (1...31).contains(d) {
            return .day(year: y, month: m, day: d)
        }
        return nil
    }

    /// The instant, or the first millisecond of the day in `calendar`'s zone; nil for a day the calendar has not.
    public func startTime(in calendar: HouseholdCalendar) -> Timestamp? {
        switch self {
        case let .instant(time): return time
        case let .day(y, m, d): return calendar.start(ofDay: y, m, d)
        }
    }

    /// The instant, or the first millisecond after the day in `calendar`'s zone; nil for a day the calendar has not.
    public func endTime(in calendar: HouseholdCalendar) -> Timestamp? {
        switch self {
        case let .instant(time): return time
        case .day:
            guard let start = startTime(in: calendar) else { return nil }
            // The next day's start: 23 to 25 hours later around a change of clocks.
            let next = start.adding(milliseconds: 36 * 3_600_000)
            let day = calendar.day(next).split(separator: "-").compactMap { Int($0) }
            guard day.count == 3 else { return nil }
            return calendar.start(ofDay: day[0], day[1], day[2])
        }
    }
}

/// How far into the history a view looks (`--as-of SEQ|TIME`, the hub's `as-of`):
/// the end, an event's seq, or a time (a day: its end in the household's time zone).
///
/// ```swift
/// let asOf = ViewAsOf.parse("120")                     // .seq(120)
/// let stop = asOf.flatMap { $0.replayStop(calendar: .utc) }  // ReplayStop.seq(120)
/// ```
public enum ViewAsOf: Hashable, Sendable {
    case end
    case seq(Int)
    case time(ViewTime)

    /// A seq (0 or more) or a time; nil for anything else.
    public static func parse(_ text: String) -> ViewAsOf? {
        if let seq = Int(text), seq >= 0 { return .seq(seq) }
        return ViewTime.parse(text).map(ViewAsOf.time)
    }

    /// Where replay stops; a day ends with its last millisecond in the household's time zone. Nil for a day the calendar has not.
    public func replayStop(calendar: HouseholdCalendar) -> ReplayStop? {
        switch self {
        case .end: return .end
        case let .seq(seq): return .seq(seq)
        case let .time(time):
            if case let .instant(instant) = time { return .time(instant) }
            return time.endTime(in: calendar).map { .time($0.adding(milliseconds: -1)) }
        }
    }
}
