import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

@Suite struct TimestampTests {
    @Test func formatsAndParsesTheJournalForm() {
        let at = Timestamp("2024-02-29T23:59:59.999Z")
        #expect(at?.millisecondsSince1970 == 1_709_251_199_999)
        #expect(at?.description == "2024-02-29T23:59:59.999Z")
        #expect(Timestamp(millisecondsSince1970: 0).description == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSince1970: -1).description == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.earliest.description == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.latest.description == "9999-12-31T23:59:59.999Z")
    }

    @Test(arguments: ["2023-02-29T00:00:00.000Z", "2024-13-01T00:00:00.000Z", "2024-01-01T24:00:00.000Z",
                      "2024-01-01T00:60:00.000Z", "2024-01-01T00:00:00.00Z", "2024-01-01T00:00:00.000",
                      "2024-01-01 00:00:00.000Z", "2024-01-01T00:00:00.000+01:00", "", "not a time"])
    func refusesAnythingElse(text: String) {
        #expect(Timestamp(text) == nil)
    }

    /// The journal's form read byte by byte, the plain way: what the parser
    /// that reads eight bytes at a time must agree with.
    static func reference(_ text: [UInt8]) -> Timestamp? {
        guard text.count == 24 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for c in text[from..<(from + count)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) else { return nil }
                value = value * 10 + Int64(c - UInt8(ascii: "0"))
            }
            return value
        }
        guard text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"),
              text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "."), text[23] == UInt8(ascii: "Z"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2), let milli = number(20, 3),
              (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        return Timestamp(millisecondsSince1970: ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli)
    }

    /// Random times, and the same with every byte value put in each position.
    @Test func readingEightBytesAtATimeAgreesWithReadingByteByByte() {
        var rng = SplitMix64(seed: 8)
        let edges = ["2024-02-29T23:59:59.999Z", "2023-02-28T00:00:00.000Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
                     "1999-12-31T23:59:59.999Z", "2100-02-28T12:30:45.500Z"]
        var texts = edges.map { Array($0.utf8) }
        for _ in 0..<2_000 {
            let ms = Int64.random(in: Timestamp.earliest.millisecondsSince1970...Timestamp.latest.millisecondsSince1970, using: &rng)
            texts.append(Array(Timestamp(millisecondsSince1970: ms).description.utf8))
        }
        for (n, text) in texts.enumerated() {
            #expect(text.withUnsafeBufferPointer(Timestamp.parse) == Self.reference(text))
            guard n < 12 else { continue }
            for position in text.indices {
                for byte in 0...255 {
                    var changed = text
                    changed[position] = UInt8(byte)
                    #expect(changed.withUnsafeBufferPointer(Timestamp.parse) == Self.reference(changed), "\(String(decoding: changed, as: UTF8.self))")
                }
            }
        }
    }

    @Test func randomTimesRoundTrip() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let ms = Int64.random(in: Timestamp.earliest.millisecondsSince1970...Timestamp.latest.millisecondsSince1970, using: &rng)
            let t = Timestamp(millisecondsSince1970: ms)
            #expect(Timestamp(t.description) == t)
        }
    }

    @Test func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SplitMix64(seed: 8)
        for _ in 0..<500 {
            let ms = Int64.random(in: 0...4_102_444_800_000, using: &rng)
            let t = Timestamp(millisecondsSince1970: ms)
            #expect(formatter.string(from: t.date) == t.description)
        }
    }
}

@Suite struct IdentifierTests {
    @Test func uuidsReadInAnyCaseAndWriteInUpperCase() {
        let id = ItemID("e976a9e1-0806-4504-99bf-116004c8ded9")
        #expect(id?.description == "E976A9E1-0806-4504-99BF-116004C8DED9")
        #expect(ItemID("E976A9E1-0806-4504-99BF-116004C8DED9") == id)
        #expect(ItemID("E976A9E1080645 04-99BF-116004C8DED9") == nil)
        #expect(ItemID("E976A9E1-0806-4504-99BF-116004C8DED") == nil)
        #expect(LocationID.unknown.description == "00000000-0000-0000-0000-000000000000")
    }

    @Test func sequentialGeneratorIsDeterministic() {
        let ids = IDGenerator.sequential()
        let first: ItemID = ids.make()
        let second: ItemID = ids.make()
        #expect(first.description == "00000000-0000-0000-0000-000000000001")
        #expect(second.description == "00000000-0000-0000-0000-000000000002")
        #expect(first < second)
        // The prefix in the first four bytes, the counter big-endian in the last eight.
        let prefixed = IDGenerator.sequential(startingAt: 0x0102_0304_0506_0708, prefix: 0xAABB_CCDD)
        #expect(prefixed.makeUUID().uuidString == "AABBCCDD-0000-0000-0102-030405060708")
        #expect(prefixed.makeUUID().uuidString == "AABBCCDD-0000-0000-0102-030405060709")
        #expect(IDGenerator.sequential(startingAt: .max).makeUUID().uuidString == "00000000-0000-0000-FFFF-FFFFFFFFFFFF")
    }

    /// Random ids are version-4 UUIDs, every one new, from four threads at once and across many
    /// refills of the buffer they are cut from; and their bits are not stuck (each of the 122
    /// random bits is seen both set and clear).
    @Test func randomIdsAreVersionFourAndNeverRepeat() async {
        let perTask = 5_000
        let all = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<perTask).map { _ in IDGenerator.random.makeUUID() } }
            }
            return await group.reduce(into: [UUID]()) { $0 += $1 }
        }
        #expect(all.count == 4 * perTask)
        #expect(Set(all).count == all.count)
        #expect(all.allSatisfy { $0.uuid.6 >> 4 == 4 && $0.uuid.8 >> 6 == 0b10 })
        #expect(all.allSatisfy { UUID(uuidString: $0.uuidString) == $0 })
        var set = [UInt8](repeating: 0, count: 16), clear = [UInt8](repeating: 0, count: 16)
        for id in all {
            withUnsafeBytes(of: id.uuid) { bytes in
                for i in 0..<16 {
                    set[i] |= bytes[i]
                    clear[i] |= ~bytes[i]
                }
            }
        }
        #expect(set == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x4F, 0xFF, 0xBF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(clear == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xBF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }
}

@Suite struct HexTests {
    /// The eight-at-a-time hex reader agrees with reading one digit at a time, for every byte.
    @Test func wordAtATimeAgreesWithByteAtATime() {
        var rng = SplitMix64(seed: 3)
        let interesting: [UInt8] = Array(0x2F...0x3A) + Array(0x40...0x47) + Array(0x60...0x67) + [0x00, 0x10, 0x19, 0x20, 0x7F, 0x80, 0xC3, 0xFF]
        for round in 0..<50_000 {
            var bytes = (0..<8).map { _ in interesting.randomElement(using: &rng)! }
            if round % 2 == 0 { bytes = (0..<8).map { _ in Array("0123456789abcdefABCDEF".utf8).randomElement(using: &rng)! } }
            var scalar: UInt32? = 0
            for byte in bytes {
                guard let value = UUIDText.hexValue(byte), let sofar = scalar else { scalar = nil; break }
                scalar = sofar << 4 | UInt32(value)
            }
            let fast = bytes.withUnsafeBufferPointer { UUIDText.hex8($0.baseAddress!) }
            #expect(fast == scalar, "\(bytes)")
        }
        for byte in 0...255 {
            let valid = (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
            #expect((UUIDText.hexValue(UInt8(byte)) != nil) == valid, "\(byte)")
        }
    }

    /// The four-bytes-at-a-time writers agree with Foundation's spelling of a
    /// UUID (upper case) and with `%08x` for each word of a digest.
    @Test func writingFourBytesAtATimeAgreesWithFoundation() {
        var rng = SplitMix64(seed: 4)
        let edges: [UInt8] = [0x00, 0x09, 0x0A, 0x0F, 0x90, 0x99, 0x9A, 0xA0, 0xA9, 0xAF, 0xF0, 0xFF]
        for round in 0..<20_000 {
            let bytes = (0..<16).map { _ in round % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : edges.randomElement(using: &rng)! }
            let uuid = UUIDText.uuid(bytes)
            #expect(UUIDText.format(uuid) == uuid.uuidString)
            let words = (0..<8).map { _ in round % 2 == 0 ? UInt32.random(in: 0...UInt32.max, using: &rng) : UInt32(edges.randomElement(using: &rng)!) * 0x0101_0101 }
            let digest = SHA256Digest(words: (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7]))
            #expect(digest.hex == words.map { String(format: "%08x", $0) }.joined())
        }
    }

    /// The vector parsers of ids and digests (where this CPU has them) agree
    /// with the portable ones and with Foundation's spelling: on random text in
    /// either case, and on the same text with every byte value put in each position.
    @Test func readingHexWithVectorsAgreesWithThePortableWay() {
        var rng = SplitMix64(seed: 5)
        func uuid(_ text: [UInt8]) -> (UUID?, UUID?) {
            text.withUnsafeBufferPointer { (UUIDText.parse($0), UUIDText.parsePortably($0.baseAddress!)) }
        }
        func digest(_ text: [UInt8]) -> (SHA256Digest?, SHA256Digest?) {
            text.withUnsafeBufferPointer { (SHA256Digest.parse($0), SHA256Digest.parsePortably($0.baseAddress!)) }
        }
        for round in 0..<400 {
            let id = UUIDText.uuid((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let idText = Array((round % 2 == 0 ? id.uuidString : id.uuidString.lowercased()).utf8)
            #expect(uuid(idText) == (id, id))
            let hash = SHA256.hash(Array("line \(round)".utf8))
            let hashText = Array((round % 2 == 0 ? hash.hex : hash.hex.uppercased()).utf8)
            #expect(digest(hashText) == (hash, hash))
            guard round < 8 else { continue }
            for position in idText.indices {
                for byte in 0...255 {
                    var changed = idText
                    changed[position] = UInt8(byte)
                    let (fast, portable) = uuid(changed)
                    #expect(fast == portable, "\(position) \(byte)")
                    let valid = [8, 13, 18, 23].contains(position) ? byte == 0x2D : UUIDText.hexValue(UInt8(byte)) != nil
                    #expect(fast?.uuidString == (valid ? String(decoding: changed, as: UTF8.self).uppercased() : nil), "\(position) \(byte)")
                }
            }
            for position in hashText.indices {
                for byte in 0...255 {
                    var changed = hashText
                    changed[position] = UInt8(byte)
                    let (fast, portable) = digest(changed)
                    #expect(fast == portable, "\(position) \(byte)")
                    #expect((fast != nil) == (UUIDText.hexValue(UInt8(byte)) != nil), "\(position) \(byte)")
                }
            }
        }
        print("hex parsed with vector instructions: \(UUIDText.usesVectors)")
    }
}

@Suite struct ActorRuleTests {
    /// `Limits.checkActor` reads printable ASCII as bytes; it must agree with
    /// the rule as written (1 to 100 characters, not white space only, no
    /// control characters U+0000–U+001F and U+007F) on any text.
    @Test func agreesWithTheRuleOnRandomText() {
        let pieces = ["a", "Z", "0", " ", "~", "\t", "\n", "\r\n", "\u{00A0}", "é", "e\u{301}", "🧀", "\u{2003}", "\u{7F}", "-", "x"]
        var rng = SplitMix64(seed: 41)
        var accepted = 0, rejected = 0
        for _ in 0..<20_000 {
            let length = [0, 1, 2, 5, 99, 100, 101, 102].randomElement(using: &rng)!
            let actor = (0..<length).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let expected = (1...100).contains(actor.count) && actor.contains { !$0.isWhitespace }
                && !actor.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            let actual = (try? Limits.checkActor(actor)) != nil
            #expect(actual == expected, "\(actor.debugDescription)")
            if actual { accepted += 1 } else { rejected += 1 }
        }
        #expect(accepted > 1_000 && rejected > 1_000)
    }
}
