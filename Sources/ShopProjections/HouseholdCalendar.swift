import Foundation
import ShopEvents

/// Calendar days and months in the household's time zone.
///
/// ```swift
/// let berlin = HouseholdCalendar(timeZone: "Europe/Berlin")
/// berlin.day(Timestamp("2026-06-01T23:30:00.000Z")!)   // "2026-06-02"
/// ```
public struct HouseholdCalendar: Hashable, Sendable {
    public let timeZone: TimeZone
    /// Where ``monthNumber(remembering:)`` found the offset last, and how long it holds.
    private var span = OffsetSpan()

    /// A time zone by IANA name; UTC if the name is unknown.
    public init(timeZone identifier: String) {
        // reason: "UTC" is in every time zone database Foundation reads
        timeZone = TimeZone(identifier: identifier) ?? TimeZone(identifier: "UTC")!
    }

    public static let utc = HouseholdCalendar(timeZone: "UTC")

    /// Days since 1970-01-01 in the household's time zone.
    func localDay(_ time: Timestamp) -> Int64 {
        Self.day(local: time.millisecondsSince1970 + Int64(timeZone.secondsFromGMT(for: time.date)) * 1000)
    }

    /// The day (from 1970-01-01) of a local time in milliseconds, rounding down before 1970 too.
    private static func day(local: Int64) -> Int64 { local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000 }

    /// `YYYY-MM-DD` of the day `time` falls on, in the household's time zone.
    public func day(_ time: Timestamp) -> String { Self.dayText(localDay(time)) }

    /// `YYYY-MM-DD` of a day counted from 1970-01-01.
    static func dayText(_ days: Int64) -> String {
        let (y, m, d) = civil(days)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// `YYYY-MM-DD HH:MM` in the household's time zone: a time for people.
    public func minute(_ time: Timestamp) -> String {
        let offset = Int64(timeZone.secondsFromGMT(for: time.date)) * 1000
        let local = time.millisecondsSince1970 + offset
        let minuteOfDay = ((local % 86_400_000 + 86_400_000) % 86_400_000) / 60_000
        return "\(day(time)) \(Self.pad(minuteOfDay / 60, 2)):\(Self.pad(minuteOfDay % 60, 2))"
    }

    /// `2026-11-26T10:00:00+01:00`: the time to the second (milliseconds
    /// dropped) in the household's time zone, with its offset from UTC
    /// (RFC 3339; UTC is `+00:00`): what a spreadsheet or pandas reads as a time.
    ///
    /// ```swift
    /// HouseholdCalendar(timeZone: "Europe/Berlin").second(Timestamp("2026-11-26T09:00:00.250Z")!)   // "2026-11-26T10:00:00+01:00"
    /// ```
    public func second(_ time: Timestamp) -> String {
        let offset = Int64(timeZone.secondsFromGMT(for: time.date))
        let local = time.millisecondsSince1970 + offset * 1000
        let secondOfDay = ((local % 86_400_000 + 86_400_000) % 86_400_000) / 1000
        let clock = "\(Self.pad(secondOfDay / 3600, 2)):\(Self.pad(secondOfDay / 60 % 60, 2)):\(Self.pad(secondOfDay % 60, 2))"
        let sign = offset < 0 ? "-" : "+"
        return "\(Self.dayText(Self.day(local: local)))T\(clock)\(sign)\(Self.pad(abs(offset) / 3600, 2)):\(Self.pad(abs(offset) / 60 % 60, 2))"
    }

    /// The first millisecond of a calendar day in the household's time zone;
    /// `nil` for a date that does not exist.
    public func start(ofDay year: Int, _ month: Int, _ day: Int) -> Timestamp? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month else { return nil }
        return Timestamp(date)
    }

    /// `YYYY-MM` of the month `time` falls in.
    public func month(_ time: Timestamp) -> String { Self.monthText(monthNumber(time)) }

    /// Months since year 0 (year × 12 + month − 1): a cheap key for monthly totals.
    func monthNumber(_ time: Timestamp) -> Int {
        let (y, m, _) = Self.civil(localDay(time))
        return Int(y) * 12 + Int(m) - 1
    }

    /// ``monthNumber(_:)``, remembering the offset from UTC it finds and the
    /// span of time it holds for (from this time to the zone's next
    /// transition): purchases come about in time order, so most fall in the
    /// span of the one before, and asking the time zone (ICU) for each was a
    /// twentieth of folding the statistics.
    mutating func monthNumber(remembering time: Timestamp) -> Int {
        let (y, m, _) = Self.civil(Self.day(local: time.millisecondsSince1970 + offset(remembering: time)))
        return Int(y) * 12 + Int(m) - 1
    }

    /// The offset from UTC at `time`, in milliseconds, from the span remembered if it holds there.
    mutating func offset(remembering time: Timestamp) -> Int64 {
        let milliseconds = time.millisecondsSince1970
        if !(span.from <= milliseconds && milliseconds < span.until) {
            let next = timeZone.nextDaylightSavingTimeTransition(after: time.date)
                .map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) } ?? .max
            span = OffsetSpan(from: milliseconds, until: next, offset: Int64(timeZone.secondsFromGMT(for: time.date)) * 1000)
        }
        return span.offset
    }

    /// A span of time over which the household's offset from UTC (in
    /// milliseconds) does not change. Only remembered: two calendars are the
    /// same whatever spans they remember.
    private struct OffsetSpan: Hashable, Sendable {
        var from = Int64.max
        var until = Int64.min
        var offset: Int64 = 0

        static func == (_: OffsetSpan, _: OffsetSpan) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    static func monthText(_ number: Int) -> String { "\(pad(Int64(number / 12), 4))-\(pad(Int64(number % 12 + 1), 2))" }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let date = Timestamp.civil(fromDays: days)
        return (date.year, date.month, date.day)
    }
}
