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

    @Test("damage, a torn tail, a line that is not JSON, a wrong or missing head: nil, and verify gives one thread's report")
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
            ("a torn last line", healthy + Array(#"{"seq":"#.utf8), nil),
            ("a last line that is not JSON", healthy + Array("not json\n".utf8), nil),
            ("a head that does not match", healthy, wrongHead),
            ("a head part-way that does not match (the checker stops while the reader reads on)", healthy,
             JournalHead(seq: 1_000, hash: wrongHead.hash)),
            ("a head beyond the end", healthy, JournalHead(seq: good.head.seq + 5, hash: good.head.hash)),
        ]
        for (name, bytes, expected) in cases {
            Scratch.write(bytes, to: fixture.path)
            #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: expected) == nil, "\(name)")
            let report = try JournalVerifier.verify(path: fixture.path, expecting: expected)
            #expect(report == (try JournalVerifier.verifyOneThread(path: fixture.path, expecting: expected)), "\(name)")
            #expect(!report.ok, "\(name)")
        }
    }
}
