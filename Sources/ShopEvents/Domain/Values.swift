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

/// Where the current time comes from. Inject a fixed or stepping clock in tests.
///
/// ```swift
/// let clock = Clock.stepping(from: Timestamp("2026-01-01T08:00:00.000Z")!, by: 1000)
/// ```
public struct Clock: Sendable {
    private let read: @Sendable () -> Timestamp
    public init(_ read: @escaping @Sendable () -> Timestamp) { self.read = read }
    public func now() -> Timestamp { read() }

    /// The system clock.
    public static let system = Clock { Timestamp(Date()) }
}


/// An RGBA color with components in 0…1, as ShoppingList17 stores them.
///
/// ```swift
/// let dairy = Color(red: 0.2, green: 0.4, blue: 1, opacity: 1)
/// ```
public struct Color: Hashable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var opacity: Double

    public init(red: Double, green: Double, blue: Double, opacity: Double) {
        self.red = red; self.green = green; self.blue = blue; self.opacity = opacity
    }

    /// The grey of the Unknown Location and of locations created without a color.
    public static let grey = Color(red: 0.5, green: 0.5, blue: 0.5, opacity: 1)

    var isValid: Bool {
        [red, green, blue, opacity].allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 }
    }
}

/// A list's priority; views sort high before normal before low.
public enum Priority: String, Hashable, Sendable, CaseIterable {
    case low, normal, high

    /// 2 for high, 1 for normal, 0 for low.
    public var rank: Int {
        switch self {
        case .low: return 0
        case .normal: return 1
        case .high: return 2
        }
    }
}

/// What a member of a household may do (SPEC section 3, "Members and roles").
///
/// | role | may issue |
/// |---|---|
/// | `owner` | every command |
/// | `member` | every command but `AddMember`, `ChangeMemberRole`, `PurgeList`, and `RemoveMember` of anyone but itself |
/// | `viewer` | no command |
///
/// ```swift
/// try journal.execute(.addMember(member: "ben", role: .member))   // ana (the issuer) becomes an owner first
/// ```
public enum Role: String, Hashable, Sendable, CaseIterable {
    case owner, member, viewer
}

/// The optional details of an item. ``Event/itemDetailsChanged(item:details:)``
/// carries the complete new set: a `nil` field is cleared.
///
/// ```swift
/// let details = ItemDetails(category: "Dairy", unitPrice: 129)
/// ```
public struct ItemDetails: Hashable, Sendable {
    public var category: String?
    public var notes: String?
    /// A reference to a photo: a file name or URL, never the bytes.
    public var photo: String?
    /// Price per unit in minor units of the household currency (249 = 2.49).
    public var unitPrice: Int?
    /// How many go on a list when `AddItemToList` gives no quantity (1 when
    /// absent): what ShoppingList17 keeps as the quantity of an item that is
    /// not on the list. Key `quantity` in the data; journals written before it
    /// have none, and readers that do not know it skip it.
    public var quantity: Quantity? {
        get { storedQuantity == Self.noQuantity ? nil : Quantity(thousandths: Int(storedQuantity)) }
        set { storedQuantity = newValue.map { Int32(clamping: Swift.max($0.thousandths, Int(Self.noQuantity) + 1)) } ?? Self.noQuantity }
    }

    /// Kept in thousandths in the four bytes after `unitPrice` (`Int32.min` for none), so
    /// that the details, and with them ``Event``, take no more room than
    /// before: every event of a replay is moved at that size. A quantity
    /// beyond the range of 32 bits is kept as the nearest end, which the rules
    /// refuse as they would the value itself.
    private var storedQuantity = ItemDetails.noQuantity
    private static let noQuantity = Int32.min

    /// What a quantity counts (SPEC section 10): `kg`, `l`, `pack`, 1 to 16
    /// characters; `nil` for pieces. Version 2 of the item's events.
    public var unit: String? {
        get { more?.unit }
        set { more = Self.more(unit: newValue, barcode: barcode) }
    }
    /// The digits of the item's EAN-8, UPC-A or EAN-13 (``Barcode``). Version 2 of the item's events.
    public var barcode: String? {
        get { more?.barcode }
        set { more = Self.more(unit: unit, barcode: newValue) }
    }

    /// Unit and barcode, which most items have neither of, behind one
    /// reference: the details (and with them ``Event``) grow by 8 bytes, not 32.
    private final class More: Sendable {
        let unit: String?, barcode: String?
        init(unit: String?, barcode: String?) { self.unit = unit; self.barcode = barcode }
    }
    private var more: More?
    private static func more(unit: String?, barcode: String?) -> More? {
        unit == nil && barcode == nil ? nil : More(unit: unit, barcode: barcode)
    }

    public init(category: String? = nil, notes: String? = nil, unitPrice: Int? = nil, photo: String? = nil, quantity: Quantity? = nil,
                unit: String? = nil, barcode: String? = nil) {
        self.category = category; self.notes = notes; self.unitPrice = unitPrice; self.photo = photo
        self.quantity = quantity
        more = Self.more(unit: unit, barcode: barcode)
    }

    public static func == (a: ItemDetails, b: ItemDetails) -> Bool {
        a.category == b.category && a.notes == b.notes && a.photo == b.photo && a.unitPrice == b.unitPrice
            && a.storedQuantity == b.storedQuantity && a.unit == b.unit && a.barcode == b.barcode
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(category); hasher.combine(notes); hasher.combine(photo); hasher.combine(unitPrice)
        hasher.combine(storedQuantity); hasher.combine(unit); hasher.combine(barcode)
    }

    public static let none = ItemDetails()
}

/// The limits of section 3 of the specification, in one place.
public enum Limits {
    public static let nameLength = 1...200
    public static let actorLength = 1...100

    /// The actor rule: 1 to 100 characters, and not white space only
    /// (an actor is a person or a device, and must be told apart in audits).
    public static func checkActor(_ actor: String) throws(RuleViolation) {
        // Printable ASCII, the common case: one character a byte, and only the space is white space.
        let plain = actor.utf8.withContiguousStorageIfAvailable { bytes in
            actorLength.contains(bytes.count) && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && bytes.contains { $0 != 0x20 }
        }
        if plain == true { return }
        try checkNoControlCharacters(actor, field: "actor")
        guard actorLength.contains(actor.count) else {
            throw RuleViolation(.invalidActor, "actor \(ShopState.quoted(actor)) must be 1 to 100 characters", field: "actor")
        }
        guard actor.contains(where: { !$0.isWhitespace }) else {
            throw RuleViolation(.invalidActor, "actor \(ShopState.quoted(actor)) is only white space; name who issues the command", field: "actor")
        }
    }

    /// Names, units, actors and devices hold no control characters: C0
    /// (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F). A name is shown on
    /// one line, in a table or a message, and a tab, newline, NUL or an escape
    /// sequence (`U+009B` starts one on many terminals) would break or take
    /// over what shows it (`invalid_name`). Joiners and other format
    /// characters (U+200D in emoji) are not control characters and stay allowed.
    ///
    /// Notes pass `allowingLineBreaks`: a line feed and a tab are allowed (a
    /// note may have several lines), every other control character is not
    /// (`invalid_text`).
    ///
    /// ```swift
    /// try Limits.checkNoControlCharacters("Oat milk 🥛", field: "name")      // fine
    /// do { try Limits.checkNoControlCharacters("csi\u{9B}31m", field: "name") }
    /// catch { print(error.code) }                                            // invalid_name
    /// try Limits.checkNoControlCharacters("1 l\nor 2", field: "notes", allowingLineBreaks: true)
    /// ```
    public static func checkNoControlCharacters(_ text: String, field: String, allowingLineBreaks: Bool = false) throws(RuleViolation) {
        // UTF-8: C0 and DEL are single bytes, C1 is 0xC2 then 0x80…0x9F; text without any of these bytes is clean.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return }
        let refused: (Unicode.Scalar) -> Bool
        if checkingRecordedText {
            // The rule a recorded line was written under (v3): C0 and DEL in names, actors and devices; nothing in units and notes.
            if allowingLineBreaks || field == "unit" { return }
            refused = { $0.value < 0x20 || $0.value == 0x7F }
        } else {
            refused = { isControl($0) && !(allowingLineBreaks && ($0 == "\n" || $0 == "\t")) }
        }
        guard let found = text.unicodeScalars.first(where: refused) else { return }
        let code = String(format: "U+%04X", found.value)
        if allowingLineBreaks {
            throw RuleViolation(.invalidText, "\(field) \(ShopState.quoted(text)) holds the control character \(code); \(field) may hold line feeds and tabs but no other control character (U+0000–U+001F, U+007F–U+009F)", field: field)
        }
        throw RuleViolation(.invalidName, "\(field) \(ShopState.quoted(text)) holds the control character \(code); names, units, actors and devices may hold none (U+0000–U+001F, U+007F–U+009F)", field: field)
    }

    /// True while ``ShopDecider/check(_:_:actor:)`` checks a recorded event again
    /// under the text rules of v3, after a rule of v4 refused it: every v3
    /// journal is a valid v4 journal, so a C1 character in a name, or a carriage
    /// return in a note, written before v4 still verifies; a new command may
    /// hold neither. Bound only on that rare second check, never on the way of
    /// a command or of an event that passes at once.
    @TaskLocal static var checkingRecordedText = false

    /// C0, DEL or C1: the control characters of ``checkNoControlCharacters(_:field:allowingLineBreaks:)``.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` with each control character (C0, DEL, C1) written as an escape
    /// (`\\n`, `\\t`, `\\r`, else `\\u{1B}`), for showing text that journals
    /// written before the rule above may hold: a name never prints a raw
    /// newline, NUL or terminal escape.
    package static func visible(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0..<0x20, 0x7F...0x9F: out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    public static let quantity = Quantity.allowed
    public static let price = 0...100_000_000
    /// Longest category text (characters) after trimming; an empty category is absent.
    public static let categoryLength = 200
    /// Longest notes text (characters).
    public static let notesLength = 10_000
    /// Longest unit (characters) after trimming; an empty unit is absent (pieces).
    public static let unitLength = 16
    /// Longest photo reference (characters).
    public static let photoLength = 2_000
    /// The position the Unknown Location reports; it always sorts last.
    public static let unknownLocationPosition = 2_147_483_647
}

// Codable here, beside their declarations: the keys are the journal's
// (`red`, `green`, `blue`, `opacity`; `category`, `notes`, `unitPrice`, `photo`, `quantity`).
extension Color: Codable {}
/// A plain JSON number, as in the journal (`2`, `1.5`).
extension Quantity: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int.self) { self.init(whole); return }
        let number = try container.decode(Decimal.self)
        guard let quantity = Quantity("\(number)") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a quantity has at most three fraction digits")
        }
        self = quantity
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let whole { try container.encode(whole) } else { try container.encode(Decimal(string: description)!) }
    }
}
extension ItemDetails: Codable {
    // The journal's keys, in its order; `storedQuantity` is `quantity`.
    private enum CodingKeys: String, CodingKey { case category, notes, unitPrice, photo, quantity, unit, barcode }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(category: try c.decodeIfPresent(String.self, forKey: .category), notes: try c.decodeIfPresent(String.self, forKey: .notes),
                  unitPrice: try c.decodeIfPresent(Int.self, forKey: .unitPrice), photo: try c.decodeIfPresent(String.self, forKey: .photo),
                  quantity: try c.decodeIfPresent(Quantity.self, forKey: .quantity),
                  unit: try c.decodeIfPresent(String.self, forKey: .unit), barcode: try c.decodeIfPresent(String.self, forKey: .barcode))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(category, forKey: .category)
        try c.encodeIfPresent(notes, forKey: .notes)
        try c.encodeIfPresent(unitPrice, forKey: .unitPrice)
        try c.encodeIfPresent(photo, forKey: .photo)
        try c.encodeIfPresent(quantity, forKey: .quantity)
        try c.encodeIfPresent(unit, forKey: .unit)
        try c.encodeIfPresent(barcode, forKey: .barcode)
    }
}
