import Foundation

/// A recording time with millisecond precision, written in the journal as
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, exactly three fraction digits).
///
/// ```swift
/// let at = Timestamp("2026-11-22T09:30:00.000Z")!
/// print(at)                                   // 2026-11-22T09:30:00.000Z
/// print(at.adding(milliseconds: 1_500))       // 2026-11-22T09:30:01.500Z
/// ```
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    /// The earliest and latest times the journal format can write (years 0000…9999).
    public static let earliest = Timestamp(millisecondsSince1970: -62_167_219_200_000)
    public static let latest = Timestamp(millisecondsSince1970: 253_402_300_799_999)

    public init(millisecondsSince1970: Int64) { self.millisecondsSince1970 = millisecondsSince1970 }

    /// Converts a Foundation date, rounding down to the millisecond.
    public init(_ date: Date) {
        millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }


    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    public func adding(milliseconds: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: millisecondsSince1970 + milliseconds)
    }


    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    // Days from civil and back: Howard Hinnant's algorithms, exact for the
    // proleptic Gregorian calendar.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package static func civil(fromDays z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
