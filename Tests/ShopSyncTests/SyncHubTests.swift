import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// `shop-replay hub` as a real process over pipes: one answer a request,
/// refusals that write nothing, and serving on after them.
@Suite("Sync: the hub process")
struct SyncHubTests {
    static let zeros = String(repeating: "0", count: 64)

    /// A hub journal with a closed household (ana owner, ben member) and a hub process serving it.
    final class Served {
        let world = SyncWorld()
        let process: ChildProcess
        let state: ShopState

        init(as actor: String? = nil) throws {
            state = try world.makeHub(items: ["Milk"], onList: ["Milk"], members: [("ana", .owner), ("ben", .member)])
            process = try ChildProcess(ToolRunner.binary, ["hub", "--journal", world.hub] + (actor.map { ["--as", $0] } ?? []),
                                       stdin: .pipe, stdout: .pipe, stderr: .null)
        }

        func ask(_ line: String) -> [String: Any] {
            process.write(line + "\n")
            guard let answer = process.readLine(timeout: 10) else { return ["no answer": true] }
            return (try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]) ?? ["not JSON": answer]
        }

        func push(_ commands: [String]) -> [[String: Any]] {
            ask(#"{"push":{"commands":[\#(commands.joined(separator: ","))]}}"#)["results"] as? [[String: Any]] ?? []
        }

        func finish() -> Int32 {
            process.closeInput()
            return process.waitForExit()
        }
    }

    static func errorCode(_ answer: [String: Any]) -> String? { (answer["error"] as? [String: Any])?["code"] as? String }

    @Test("hello names the household and the head; pull sends whole lines byte for byte; the hub stops at end of input")
    func helloAndPull() throws {
        let served = try Served()
        let hello = served.ask(#"{"hello":{"protocol":1,"device":"p","actor":"ana"}}"#)["hello"] as? [String: Any]
        #expect(hello?["household"] as? String == served.state.household!.id.description)
        let lines = Scratch.bytes(served.world.hub).split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        #expect((hello?["head"] as? [String: Any])?["seq"] as? Int == lines.count)
        served.process.write(#"{"pull":{"after":0,"hash":"\#(Self.zeros)"}}"# + "\n")
        #expect(served.process.readLine(timeout: 10) == #"{"lines":\#(lines.count),"more":false}"#)
        var pulled: [String] = []
        for _ in lines { pulled.append(served.process.readLine(timeout: 10) ?? "") }
        #expect(pulled == lines)
        #expect(served.finish() == 0)
    }

    @Test("--as: a command naming another actor is forbidden, one naming none is recorded as the hub's actor; a non-member is refused by the roles")
    func asActor() throws {
        let served = try Served(as: "ben")
        let milk = served.state.items.values.first!.id, list = served.state.lists.values.first!.id
        let before = Scratch.bytes(served.world.hub)
        let results = served.push([
            #"{"type":"RenameItem","id":"\#(UUID())","actor":"ana","data":{"item":"\#(milk)","name":"Oat milk"}}"#,
            #"{"type":"ChangeQuantity","id":"\#(UUID())","data":{"list":"\#(list)","item":"\#(milk)","quantity":2}}"#,
        ])
        #expect(results.map { $0["ok"] as? Bool } == [false, true])
        #expect((results[0]["error"] as? [String: Any])?["code"] as? String == "forbidden")
        let events = try served.world.hubEvents()
        #expect(events.count == before.filter { $0 == 0x0A }.count + 1)
        #expect(events.last?.actor == "ben")
        #expect(events.last?.event == .listEntryQuantityChanged(list: list, item: milk, quantity: 2))
        #expect(served.finish() == 0)

        let open = try Served()
        let stranger = open.push([#"{"type":"ChangeQuantity","id":"\#(UUID())","actor":"zed","data":{"list":"\#(list)","item":"\#(milk)","quantity":2}}"#])
        #expect((stranger.first?["error"] as? [String: Any])?["code"] as? String == "not_a_member")
        #expect(open.finish() == 0)
    }

    @Test("garbage, a wrong type, a request over 1 MiB, a push of 1,001 commands, a command with at or without id: bad_request, nothing written, and the hub goes on")
    func badRequests() throws {
        let served = try Served()
        let before = Scratch.bytes(served.world.hub)
        let milk = served.state.items.values.first!.id
        let rename = { #"{"type":"RenameItem","id":"\#(UUID())","actor":"ana","data":{"item":"\#(milk)","name":"X\#(Int.random(in: 0...999_999))"}}"# }
        let requests = [
            "garbage",
            #"{"fetch":{}}"#,
            #"{"pull":{"after":"one","hash":"\#(Self.zeros)"}}"#,
            #"{"hello":{"protocol":1,"device":"p","actor":"ana","extra":1}}"#,
            #"{"push":{"commands":[\#(String(repeating: " ", count: 1 << 20))]}}"#,
            #"{"push":{"commands":[\#((0..<1_001).map { _ in rename() }.joined(separator: ","))]}}"#,
            #"{"push":{"commands":[{"type":"RenameItem","actor":"ana","data":{"item":"\#(milk)","name":"No id"}}]}}"#,
            #"{"push":{"commands":[{"type":"RenameItem","id":"\#(UUID())","at":"2026-03-01T09:00:00.000Z","data":{"item":"\#(milk)","name":"At"}}]}}"#,
            #"{"push":{"commands":[\#(rename()),{"type":"Nonsense","id":"\#(UUID())","data":{}}]}}"#,
        ]
        for request in requests {
            #expect(Self.errorCode(served.ask(request)) == "bad_request", "\(request.prefix(80))")
        }
        #expect(Scratch.bytes(served.world.hub) == before, "nothing was written")
        let hello = served.ask(#"{"hello":{"protocol":1,"device":"p","actor":"ana"}}"#)
        #expect(hello["hello"] != nil, "the hub still serves")
        #expect(Self.errorCode(served.ask(#"{"hello":{"protocol":2,"device":"p","actor":"ana"}}"#)) == "unsupported_protocol")
        #expect(served.finish() == 0)
    }

    @Test("a pull from a history that is not a prefix of the hub's is diverged; a pushed command id the hub has is answered with its first seqs")
    func divergedAndRetry() throws {
        let served = try Served()
        let count = Scratch.bytes(served.world.hub).filter { $0 == 0x0A }.count
        #expect(Self.errorCode(served.ask(#"{"pull":{"after":2,"hash":"\#(Self.zeros)"}}"#)) == "diverged")
        #expect(Self.errorCode(served.ask(#"{"pull":{"after":\#(count + 5),"hash":"\#(Self.zeros)"}}"#)) == "diverged")
        #expect(Self.errorCode(served.ask(#"{"pull":{"after":0,"hash":"\#(String(repeating: "1", count: 64))"}}"#)) == "diverged")

        let milk = served.state.items.values.first!.id
        let command = #"{"type":"RenameItem","id":"\#(UUID())","actor":"ana","data":{"item":"\#(milk)","name":"Oat milk"}}"#
        let first = served.push([command])
        let afterFirst = Scratch.bytes(served.world.hub)
        let again = served.push([command])
        #expect(first.first?["seqs"] as? [Int] == [count + 1])
        #expect(again.first?["seqs"] as? [Int] == [count + 1])
        #expect(Scratch.bytes(served.world.hub) == afterFirst)
        #expect(served.finish() == 0)
    }

    @Test("a pull's answer never splits a command, whatever its size limit")
    func wholeCommands() throws {
        let world = SyncWorld()
        // ana's first AddMember (of ben) in the open household is two events: ana becomes an owner, ben is added.
        _ = try world.makeHub(items: ["Milk"], onList: [], members: [("ben", .member)], issuer: "ana")
        let lines = Scratch.bytes(world.hub).split(separator: 0x0A).map(Array.init)
        let hub = SyncHub(journal: world.hub)
        hub.linesPerPull = 1
        var after = JournalHead.empty
        var pulled: [[UInt8]] = []
        var answers: [Int] = []
        while true {
            guard case let .lines(batch, more) = hub.respond(to: .pull(after: after.seq, hash: after.hash)) else {
                Issue.record("no lines")
                return
            }
            pulled += batch
            answers.append(batch.count)
            after = JournalHead(seq: pulled.count, hash: SHA256.hash(pulled.last!))
            if !more { break }
        }
        #expect(pulled == lines)
        #expect(answers.contains(2), "the two lines of the first AddMember came together")
        #expect(answers.allSatisfy { $0 == 1 || $0 == 2 })
    }
}
