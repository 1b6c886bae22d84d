import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// The protocol's messages: the wire form and the Codable form say the same.
@Suite("Sync: messages")
struct SyncMessageTests {
    static let hash = SHA256.hash(Array("line".utf8))

    static func requests() throws -> [SyncRequest] {
        var commands = RandomCommands(seed: 5)
        var state = ShopState.initial
        var pushed: [CommandEnvelope] = []
        for _ in 0..<200 {
            let command = commands.next(for: state)
            pushed.append(CommandEnvelope(command, id: CommandID(), actor: "ana", correlation: CorrelationID(), device: "p"))
            if let events = try? ShopDecider.decide(command, state, actor: "ana") {
                for event in events { state.apply(event, EventContext(seq: 1, at: TestClock.start, actor: "ana")) }
            }
        }
        return [.hello(protocol: 1, device: "phone ä", actor: "ana"), .pull(after: 0, hash: .zero), .pull(after: 41, hash: hash),
                .push(commands: pushed), .push(commands: [])]
    }

    static let responses: [SyncResponse] = [
        .hello(protocol: 1, household: HouseholdID(), head: JournalHead(seq: 3, hash: hash)),
        .hello(protocol: 1, household: nil, head: .empty),
        .lines([Array(#"{"seq":1,"x":"ä"}"#.utf8), Array(#"{"seq":2}"#.utf8)], more: true),
        .lines([], more: false),
        .results([PushResult(command: CommandID(), seqs: [4, 5], error: nil),
                  PushResult(command: CommandID(), seqs: [], error: SyncFailure(code: "already_bought", message: "bought \"x\""))]),
        .error(SyncFailure(code: "diverged", message: "no")),
    ]

    @Test("requests: wire → decode and Codable → JSONDecoder give the same values")
    func requestRoundTrips() throws {
        for request in try Self.requests() {
            let wire = SyncWire.encode(request)
            #expect(wire.last == 0x0A && wire.dropLast().firstIndex(of: 0x0A) == nil, "one line")
            #expect(try SyncWire.decodeRequest(Array(wire.dropLast())) == request)
            #expect(try JSONDecoder().decode(SyncRequest.self, from: JSONEncoder().encode(request)) == request)
            #expect(try JSONDecoder().decode(SyncRequest.self, from: Data(wire)) == request)
        }
    }

    @Test("responses: wire → readResponse and Codable → JSONDecoder give the same values")
    func responseRoundTrips() throws {
        for response in Self.responses {
            var lines = SyncWire.encode(response).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
            #expect(try SyncWire.readResponse { lines.next() } == response)
            #expect(try JSONDecoder().decode(SyncResponse.self, from: JSONEncoder().encode(response)) == response)
        }
    }

    @Test("a pull's answer is its header and then the journal lines byte for byte")
    func pullWire() {
        let bytes = SyncWire.encode(SyncResponse.lines([Array(#"{"seq":1}"#.utf8)], more: false))
        #expect(String(decoding: bytes, as: UTF8.self) == "{\"lines\":1,\"more\":false}\n{\"seq\":1}\n")
    }

    @Test("a request over 1 MiB is refused before it is parsed")
    func tooLarge() {
        let big = Array(#"{"hello":{"protocol":1,"device":""#.utf8) + [UInt8](repeating: 0x61, count: 1 << 20) + Array(#"","actor":"a"}}"#.utf8)
        #expect(throws: SyncFailure.self) { try SyncWire.decodeRequest(big) }
    }
}
