import Foundation
import Testing
@testable import ShopProjections
import ShopEvents
import ShopTestSupport

/// What the report writes as HTML is escaped scalar by scalar: no character that
/// joins its neighbour into one grapheme cluster (a Prepend scalar before `<`, a
/// combining mark or a variation selector after it, a joiner) lets a `<`, `>`,
/// `&`, `"` or `'` through.
@Suite struct HTMLEscapingTests {
    /// Scalars that join the scalar after them (Prepend) or the one before them
    /// (Extend: combining marks, variation selectors, ZWJ, ZWNJ; SpacingMark).
    static let joiners: [Unicode.Scalar] = [
        "\u{0600}", "\u{0601}", "\u{0605}", "\u{06DD}", "\u{070F}", "\u{0890}", "\u{08E2}", "\u{0D4E}", "\u{110BD}", "\u{111C2}",
        "\u{0300}", "\u{0301}", "\u{036F}", "\u{0483}", "\u{20D0}", "\u{1AB0}", "\u{200C}", "\u{200D}",
        "\u{FE00}", "\u{FE0F}", "\u{E0100}", "\u{E01EF}", "\u{0903}", "\u{1F3FB}", "\u{E0020}",
    ]
    static let specials: [Unicode.Scalar] = ["<", ">", "&", "\"", "'"]
    static let entities: [Unicode.Scalar: String] = ["<": "&lt;", ">": "&gt;", "&": "&amp;", "\"": "&quot;", "'": "&#39;"]

    /// The text back from its escaped form: every entity the escaper writes, read back byte by byte (a
    /// `Character` walk would not see an `&` that a joiner made part of a cluster).
    static func unescaped(_ html: String) -> String {
        var out: [UInt8] = [], rest = Array(html.utf8)[...]
        while let first = rest.first {
            guard first == UInt8(ascii: "&") else {
                out.append(first)
                rest = rest.dropFirst()
                continue
            }
            let entity = entities.first { rest.starts(with: $0.value.utf8) }
            #expect(entity != nil, "an unescaped & in \(html.debugDescription)")
            guard let entity else { return String(decoding: out + rest, as: UTF8.self) }
            out += String(entity.key).utf8
            rest = rest.dropFirst(entity.value.utf8.count)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hasRawSpecial(_ html: String) -> Bool {
        html.utf8.contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }
    }

    @Test("every joining scalar before and after each special character: the character is escaped, and the text reads back whole")
    func joinersNeverHideASpecialCharacter() {
        for joiner in Self.joiners {
            for special in Self.specials {
                for text in [String(String.UnicodeScalarView([joiner, special])), String(String.UnicodeScalarView([special, joiner])),
                             String(String.UnicodeScalarView(["M", joiner, special, "x", joiner, special, joiner]))] {
                    let html = escape(text)
                    #expect(!Self.hasRawSpecial(html), "\(text.unicodeScalars.map { String($0.value, radix: 16) }) → \(html.debugDescription)")
                    #expect(Self.unescaped(html) == text)
                    #expect(html.utf8.count == text.utf8.count + text.unicodeScalars.reduce(0) { $0 + (Self.entities[$1].map { $0.utf8.count - 1 } ?? 0) })
                }
            }
        }
    }

    @Test("random texts of letters, joiners, specials and emoji: nothing raw is left, and unescaping gives the text back")
    func escapingIsAnInvertibleScalarMap() {
        var random = SeededRandom(seed: 0x5EC)
        let pieces: [Unicode.Scalar] = Self.joiners + Self.specials + ["a", "Z", "ä", " ", "/", "=", "🧀", "\u{1F1E9}", "\u{1F1EA}", "\u{0915}", "\u{094D}", "\u{1100}", "\u{1161}"]
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...24, using: &random)
            let text = String(String.UnicodeScalarView((0..<count).map { _ in pieces.randomElement(using: &random)! }))
            let html = escape(text)
            #expect(!Self.hasRawSpecial(html))
            #expect(Self.unescaped(html) == text)
        }
    }

    @Test("the shell quoting in the report's verify command quotes a path with a quote behind a Prepend letter")
    func shellQuotingSeesEveryQuote() {
        #expect(HouseholdReport.shellQuoted("home.ndjson") == "home.ndjson")
        #expect(HouseholdReport.shellQuoted("Käse/home.ndjson") == "Käse/home.ndjson")
        #expect(HouseholdReport.shellQuoted("a\u{0D4E}'; rm x") == "'a\u{0D4E}'\\''; rm x'")
        #expect(HouseholdReport.shellQuoted("x\u{0600}'") == "'x\u{0600}'\\'''")
    }

    /// The attack as it was found: a name with U+0600 before `<` in every name the report shows.
    @Test("a report of names that hide a tag behind a Prepend scalar opens no tag")
    func theReportEscapesNamesWithJoiningScalars() throws {
        let payload = "\u{0600}<img src=x onerror=alert(4)//\u{0600}>"
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("home.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0x4E), actor: "ana"))
        defer { journal.close() }
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home" + payload, currency: "EUR", timeZone: "Europe/Berlin"))
        try journal.execute(.createLocation(location: id(0x50), name: "Dairy" + payload, color: nil))
        try journal.execute(.createStore(store: id(0x60), name: "Rewe" + payload))
        try journal.execute(.createItem(item: id(1), name: "Milk" + payload, location: id(0x50), details: .init(unitPrice: 119)))
        try journal.execute(.createList(list: id(0x10), name: "Weekly" + payload, priority: .high))
        try journal.execute(.addItemToList(list: id(0x10), item: id(1), quantity: 2))
        try journal.execute(.startTrip(trip: id(0x70), list: id(0x10), store: id(0x60)))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x20), item: id(1), list: id(0x10), quantity: nil, unitPrice: nil, location: nil,
                                                          purchasedAt: nil), actor: "ana"))
        try journal.execute(.addItemToList(list: id(0x10), item: id(1), quantity: 1))
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let html = HouseholdReport(views: views, head: journal.head, journal: "home" + payload + ".ndjson").html
        #expect(html.utf8.firstRange(of: "<img".utf8) == nil)
        #expect(html.utf8.firstRange(of: "onerror=alert(4)//\u{0600}>".utf8) == nil)
        let escapedPayload = "\u{0600}&lt;img src=x onerror=alert(4)//\u{0600}&gt;"
        for name in ["Home", "Dairy", "Rewe", "Milk", "Weekly"] {
            #expect(html.utf8.firstRange(of: (name + escapedPayload).utf8) != nil, "\(name) shown escaped")
        }
    }
}
