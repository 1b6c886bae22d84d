import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// `verify` on two threads reports a healthy journal exactly as one thread
/// does, and gives up (returns nil, so one thread reports) on anything else.
@Suite struct VerifyTwoThreadsTests {
    @Test("a healthy journal: the same report as one thread, with and without an expected head")
    func healthy() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try PrefetchTests.journal(fixture, seed: 11, count: 6_000)
        let one = try JournalVerifier.verifyOneThread(path: fixture.path, expecting: nil)
        #expect(one.ok && one.events > 2 * 2_048)
        #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: nil) == one)
        #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: one.head) == one)
        // A head recorded part-way through is found too.
        let lines = fixture.lines()
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("prefix-\(UUID()).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        Scratch.write(Array(lines[..<3_000].joined(separator: [0x0A])) + [0x0A], to: prefix)
        let early = try JournalVerifier.verifyOneThread(path: prefix, expecting: nil).head
        #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: early) == one)
        #expect(try JournalVerifier.verifyOneThread(path: fixture.path, expecting: early) == one)
    }

    @Test("damage, a line that is not JSON, a wrong head: nil, and verify gives one thread's report")
    func unhealthy() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try PrefetchTests.journal(fixture, seed: 12, count: 5_000)
        let healthy = fixture.bytes()
        let lines = fixture.lines()
        let good = try JournalVerifier.verifyOneThread(path: fixture.path, expecting: nil)
        var flipped = lines
        flipped[4_000][flipped[4_000].count / 2] ^= 0x01
        var wrongHead = good.head
        wrongHead.hash = SHA256.hash(Array("not this".utf8))
        let cases: [(String, [UInt8], JournalHead?)] = [
            ("a flipped bit", Array(flipped.joined(separator: [0x0A])) + [0x0A], nil),
            ("a last line that is not JSON", healthy + Array("not json\n".utf8), nil),
            ("a head that does not match", healthy, wrongHead),
            ("a head part-way that does not match (the checker stops while the reader reads on)", healthy,
             JournalHead(seq: 1_000, hash: wrongHead.hash)),
        ]
        for (name, bytes, expected) in cases {
            Scratch.write(bytes, to: fixture.path)
            #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: expected) == nil, "\(name)")
            let report = try JournalVerifier.verify(path: fixture.path, expecting: expected)
            #expect(report == (try JournalVerifier.verifyOneThread(path: fixture.path, expecting: expected)), "\(name)")
            #expect(!report.ok, "\(name)")
        }
    }

    @Test("every line whole, and an end that is not (a torn line, a command cut short, a newer version's line, a head not there): two threads report as one")
    func wholeLinesOtherEnds() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try PrefetchTests.journal(fixture, seed: 13, count: 5_000)
        let healthy = fixture.bytes()
        let lines = fixture.lines()
        let good = try JournalVerifier.verifyOneThread(path: fixture.path, expecting: nil)
        let events = try JournalReader.readAll(path: fixture.path)
        // The first line of the last command of two events, and the journal cut just after it.
        let firstOfTwo = try #require(events.lastIndex { $0.commandEvents == 2 })
        let cutShort = Array(lines[...firstOfTwo].joined(separator: [0x0A])) + [0x0A]
        let last = events.last!
        let newer = #"{"seq":\#(last.seq + 1),"id":"\#(EventID())","type":"ItemPhotographed","v":1,"at":"\#(last.at)","actor":"ana","command":"\#(CommandID())","data":{"item":"\#(ItemID())"},"prev":"\#(SHA256.hash(lines.last!))"}"#
        let cases: [(String, [UInt8], JournalHead?)] = [
            ("a torn last line", healthy + Array(#"{"seq":"#.utf8), nil),
            ("a command cut short", cutShort, nil),
            ("a command cut short and a torn line", cutShort + Array(#"{"seq":"#.utf8), nil),
            ("a newer version's line at the end", healthy + Array(newer.utf8) + [0x0A], nil),
            ("a head beyond the end", healthy, JournalHead(seq: good.head.seq + 5, hash: good.head.hash)),
            ("a head found, and a torn last line", healthy + Array(#"{"se"#.utf8), good.head),
        ]
        for (name, bytes, expected) in cases {
            Scratch.write(bytes, to: fixture.path)
            let one = try JournalVerifier.verifyOneThread(path: fixture.path, expecting: expected)
            #expect(!one.ok || one.newerLine != nil, "\(name): \(one)")
            #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: expected) == one, "\(name)")
            #expect(try JournalVerifier.verify(path: fixture.path, expecting: expected) == one, "\(name)")
        }
    }
}
