import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Every journal an older version wrote still verifies. v4 refuses C1 characters
/// in names and units and every control character but line feed and tab in
/// notes, for new commands; a line written before v4 that holds them still
/// checks and verifies. v3's own rule (no C0 or DEL in a name) still holds.
@Suite struct OlderJournalTextStillVerifiesTests {
    static let item: ItemID = id(1)
    static let v3Texts = Event.itemCreated(item: item, name: "csi\u{9B}31mred", location: .unknown,
                                           details: ItemDetails(notes: "first\r\nsecond", unit: "k\u{85}g"))

    @Test func aNewCommandWithTheseTextsIsRefused() throws {
        let f = try Fixture.started()
        let refusals = [
            f.rejection(.createItem(item: Self.item, name: "csi\u{9B}31mred", location: nil, details: .none)),
            f.rejection(.createItem(item: Self.item, name: "Milk", location: nil, details: ItemDetails(unit: "k\u{85}g"))),
            f.rejection(.createItem(item: Self.item, name: "Milk", location: nil, details: ItemDetails(notes: "first\r\nsecond"))),
        ]
        #expect(refusals == [.invalidName, .invalidName, .invalidText])
    }

    @Test func theRecordedEventStillChecks() throws {
        let f = try Fixture.started()
        try ShopDecider.check(Self.v3Texts, f.state, actor: "ana")
        try ShopDecider.check(.itemDetailsChanged(item: Self.item, details: ItemDetails(notes: "a\u{7}bell")),
                              f.stateWith(Self.v3Texts), actor: "ana")
    }

    @Test func aC0NameWasRefusedInV3AndStillIs() throws {
        let f = try Fixture.started()
        let event = Event.itemCreated(item: Self.item, name: "a\u{1}b", location: .unknown, details: .none)
        #expect(throws: RuleViolation.self) { try ShopDecider.check(event, f.state, actor: "ana") }
        do {
            try ShopDecider.check(event, f.state, actor: "ana")
        } catch {
            #expect(error.reason == .invalidName && error.field == "name" && error.message.contains("U+0001"))
        }
        // and a name taken is still name_taken on the second check (the rules after the text rule still run)
        let taken = Event.itemCreated(item: id(2), name: "CSI\u{9B}31mRED", location: .unknown, details: .none)
        #expect(throws: RuleViolation.self) { try ShopDecider.check(taken, f.stateWith(Self.v3Texts), actor: "ana") }
        do { try ShopDecider.check(taken, f.stateWith(Self.v3Texts), actor: "ana") } catch { #expect(error.reason == .nameTaken) }
    }

    @Test func aJournalWrittenBeforeV4Verifies() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("v3.ndjson").path
        let events: [Event] = [
            .householdCreated(household: Fixture.home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"),
            Self.v3Texts,
            .itemRenamed(item: Self.item, name: "Milk\u{80}"),
            .itemDetailsChanged(item: Self.item, details: ItemDetails(notes: "tab\there\r\nCR too", unit: "l\u{9F}")),
        ]
        var prev = SHA256Digest.zero
        var bytes: [UInt8] = []
        for (index, event) in events.enumerated() {
            let line = EventLineCodec.encode(RecordedEvent(seq: index + 1, id: EventID(), at: TestClock.start.adding(milliseconds: Int64(index) * 1000),
                                                           actor: "ana", command: CommandID(), event: event, prev: prev))
            prev = SHA256.hash(line)
            bytes += line + [0x0A]
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let report = try JournalVerifier.verify(path: path)
        #expect(report == VerificationReport(events: 4, head: JournalHead(seq: 4, hash: prev), failure: nil, tornTail: nil, newerLine: nil))
    }
}

extension Fixture {
    /// The state after `event`, recorded as the next line.
    func stateWith(_ event: Event) -> ShopState {
        var state = self.state
        state.apply(RecordedEvent(seq: seq + 1, id: EventID(), at: clock.adding(milliseconds: 60_000), actor: "ana", command: CommandID(),
                                  event: event, prev: .zero))
        return state
    }
}
