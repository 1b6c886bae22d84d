import Foundation

/// The limits of the command rules (docs/COMMANDS.md, "Values"), in one place.
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
