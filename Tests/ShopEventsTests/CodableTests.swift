import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Codable values encode to the journal's own JSON: Foundation's JSONDecoder
/// reads what the journal codec writes, and the journal codec reads what
/// Foundation's JSONEncoder writes.
@Suite struct CodableTests {
    @Test func fiveThousandRandomEventsRoundTripThroughJSONEncoder() throws {
        var events = RandomEvents(seed: 4242)
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        var identical = 0
        func sortedKeys(_ value: JSONValue) -> JSONValue {
            switch value {
            case let .object(pairs): .object(pairs.map { ($0.0, sortedKeys($0.1)) }.sorted { $0.0 < $1.0 })
            case let .array(values): .array(values.map(sortedKeys))
            // A number is its value: Foundation may write 1.0 as 1.
            case let .double(d) where d == d.rounded() && abs(d) < 1e15: .int(Int(d))
            case .null, .bool, .int, .double, .string: value
            }
        }
        for _ in 0..<5_000 {
            let recorded = events.recorded()
            let data = try encoder.encode(recorded)
            // Same values through Foundation, both ways …
            #expect(try decoder.decode(RecordedEvent.self, from: data) == recorded)
            #expect(try decoder.decode(RecordedEvent.self, from: Data(EventLineCodec.encode(recorded))) == recorded)
            // … and the journal codec reads the JSON that Foundation wrote.
            #expect(try EventLineCodec.decode(Array(data)) == recorded)
            // The event alone, and its JSON is the line's type, v and data.
            let event = try encoder.encode(recorded.event)
            #expect(try decoder.decode(Event.self, from: event) == recorded.event)
            // The same keys with the same values as the journal line (Foundation's encoder on Linux does not keep key order).
            if try sortedKeys(JSONValue.parse(Array(data))) == sortedKeys(JSONValue.parse(EventLineCodec.encode(recorded))) { identical += 1 }
        }
        #expect(identical == 5_000, "\(identical) of 5,000 encodings had the journal line's keys and values")
    }

    @Test func commandsAndEnvelopesAreTheApplyFormat() throws {
        var generator = RandomCommands(seed: 7)
        var state = ShopState.initial
        var seq = 0
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        for _ in 0..<1_500 {
            let command = generator.next(for: state)
            let request = CommandEnvelope(command, id: CommandID(), actor: "ana", at: Timestamp("2026-03-01T10:00:00.000Z")!,
                                          expectedSeq: seq, correlation: CorrelationID(), device: "phone")
            let data = try encoder.encode(request)
            #expect(try decoder.decode(CommandEnvelope.self, from: data) == request)
            #expect(try CommandCodec.decode(Array(data), ids: .random) == request, "the apply format")
            #expect(try decoder.decode(Command.self, from: try encoder.encode(command)) == command)
            if let events = try? ShopDecider.decide(command, state, actor: "ana") {
                for event in events { seq += 1; state.apply(event, EventContext(seq: seq, at: TestClock.start, actor: "ana")) }
            }
        }
    }

    @Test func valuesEncodeAsTheJournalWritesThem() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func json(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        #expect(try json(ItemID("e976a9e1-0806-4504-99bf-116004c8ded9")!) == #""E976A9E1-0806-4504-99BF-116004C8DED9""#)
        #expect(try json(Timestamp("2026-03-01T18:04:05.006Z")!) == #""2026-03-01T18:04:05.006Z""#)
        #expect(try json(JournalHead(seq: 3, hash: .zero)) == #"{"hash":"\#(String(repeating: "0", count: 64))","seq":3}"#)
        #expect(try json(Role.viewer) == #""viewer""#)
        #expect(try json(ItemDetails(unitPrice: 119)) == #"{"unitPrice":119}"#)
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(ItemID.self, from: Data(#""not-a-uuid""#.utf8)) }
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(RecordedEvent.self, from: Data(#"{"seq":1}"#.utf8)) }
    }
}
