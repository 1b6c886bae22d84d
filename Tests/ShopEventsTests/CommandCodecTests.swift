import Foundation
import Testing
import ShopEvents
import ShopTestSupport

@Suite struct CommandCodecTests {
    func decode(_ text: String, ids: IDGenerator = .sequential(prefix: 0xF0)) throws -> CommandEnvelope {
        try CommandCodec.decode(Array(text.utf8), ids: ids)
    }

    func failure(_ text: String) -> CodecError? {
        do {
            _ = try decode(text)
            return nil
        } catch let error as CodecError { return error } catch { return nil }
    }

    @Test func readsAFullCommand() throws {
        let request = try decode("""
        {"type":"PurchaseItem","id":"00000000-0000-0000-0000-0000000000c1","actor":"ben","at":"2026-03-01T10:00:00.000Z",
         "expectedSeq":41,"correlation":"00000000-0000-0000-0000-0000000000c2","device":"phone",
         "data":{"item":"00000000-0000-0000-0000-000000000001","list":"00000000-0000-0000-0000-000000000010","quantity":2}}
        """)
        #expect(request == CommandEnvelope(
            .purchaseItem(purchase: PurchaseID("000000F0-0000-0000-0000-000000000001")!, item: ItemID("00000000-0000-0000-0000-000000000001")!,
                          list: ListID("00000000-0000-0000-0000-000000000010")!, quantity: 2, unitPrice: nil, location: nil, purchasedAt: nil),
            id: CommandID("00000000-0000-0000-0000-0000000000C1")!, actor: "ben", at: Timestamp("2026-03-01T10:00:00.000Z")!,
            expectedSeq: 41, correlation: CorrelationID("00000000-0000-0000-0000-0000000000C2")!, device: "phone"))
    }

    @Test func idsOfCreatedThingsMayBeOmitted() throws {
        #expect(try decode(#"{"type":"CreateList","data":{"name":"Weekly"}}"#).command
                == .createList(list: ListID("000000F0-0000-0000-0000-000000000001")!, name: "Weekly", priority: nil))
        #expect(try decode(#"{"type":"CreateLocation","data":{"name":"Dairy","color":{"red":1,"green":0.5,"blue":0,"opacity":1}}}"#).command
                == .createLocation(location: LocationID("000000F0-0000-0000-0000-000000000001")!, name: "Dairy",
                                   color: Color(red: 1, green: 0.5, blue: 0, opacity: 1)))
    }

    @Test func unknownFieldsWrongTypesAndUnknownTypesAreRefused() {
        #expect(failure(#"{"type":"CreateList","data":{"name":"W","colour":"red"}}"#)?.reason == .unknownField)
        #expect(failure(#"{"type":"CreateList","actr":"ana","data":{"name":"W"}}"#)?.reason == .unknownField)
        #expect(failure(#"{"type":"CreateList","data":{"name":7}}"#)?.reason == .invalidField)
        #expect(failure(#"{"type":"CreateList","data":{"name":"W","priority":"urgent"}}"#)?.reason == .invalidField)
        #expect(failure(#"{"type":"AddItemToList","data":{"list":"00000000-0000-0000-0000-000000000010","item":"x"}}"#)?.reason == .invalidField)
        #expect(failure(#"{"type":"AddItemToList","data":{"item":"00000000-0000-0000-0000-000000000010"}}"#)?.reason == .missingField)
        #expect(failure(#"{"type":"ChangeQuantity","data":{"list":"00000000-0000-0000-0000-000000000010","item":"00000000-0000-0000-0000-000000000010","quantity":2.5555}}"#)?.reason == .invalidQuantity)
        #expect(failure(#"{"type":"ChangeQuantity","data":{"list":"00000000-0000-0000-0000-000000000010","item":"00000000-0000-0000-0000-000000000010","quantity":2e3}}"#)?.reason == .invalidQuantity)
        #expect(failure(#"{"type":"ChangeQuantity","data":{"list":"00000000-0000-0000-0000-000000000010","item":"00000000-0000-0000-0000-000000000010","quantity":"2"}}"#)?.reason == .invalidQuantity)
        #expect(failure(#"{"type":"BuyEverything","data":{}}"#)?.reason == .unknownType)
        #expect(failure(#"{"data":{}}"#)?.reason == .missingField)
        #expect(failure(#"[{"type":"CreateList"}]"#)?.reason == .malformedJSON)
        #expect(failure(#"{"type":"CreateList","type":"CreateList","data":{"name":"W"}}"#)?.reason == .malformedJSON)
        #expect(failure(#"{"type":"CreateList","data":{"name":"W"}} trailing"#)?.reason == .malformedJSON)
    }

    @Test func randomCommandsRoundTrip() throws {
        var generator = RandomCommands(seed: 5)
        var state = ShopState.initial
        var seq = 0
        for _ in 0..<1_500 {
            let command = generator.next(for: state)
            let request = CommandEnvelope(command, id: CommandID(), actor: "ana", at: TestClock.start, expectedSeq: seq,
                                          correlation: CorrelationID(), device: "d")
            let encoded = CommandCodec.encode(request)
            #expect(try CommandCodec.decode(encoded, ids: .sequential()) == request)
            if let events = try? ShopDecider.decide(command, state, actor: "ana") {
                for event in events {
                    seq += 1
                    state.apply(RecordedEvent(seq: seq, id: EventID(), at: TestClock.start, actor: "ana", command: CommandID(), event: event, prev: .zero))
                }
            }
        }
        #expect(seq > 250)
    }
}
