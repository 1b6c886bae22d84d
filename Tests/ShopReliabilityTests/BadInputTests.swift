import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// What a person might hand the tool by mistake: one clear line each, the exit
/// code docs/TOOL.md gives, and nothing written.
@Suite struct BadInputTests {
    func expectOneLine(_ result: ToolRunner.Result, status: Int32, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"), sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func journalsThatAreNotJournals() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        // An empty file is an empty journal: no events, nothing to show, nothing wrong.
        Scratch.write([], to: tool.path("empty.ndjson"))
        let empty = try tool.run(["verify", "--journal", "empty.ndjson", "--json"])
        #expect(empty.status == 0)
        #expect(try empty.object()["events"] as? Int == 0)
        expectOneLine(try tool.run(["view", "shopping-list-by-location", "--journal", "empty.ndjson"]), status: 2, "the household has no lists yet")
        let files: [(String, [UInt8], String)] = [
            ("binary.bin", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }, "line 1"),
            ("array.json", Array("[\n  {\"seq\": 1},\n  {\"seq\": 2}\n]\n".utf8), "line 1"),
            ("pretty.json", Array("{\n  \"seq\": 1\n}\n".utf8), "line 1"),
            ("huge.ndjson", Array("{\"seq\":1,\"actor\":\"".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 100 << 20) + Array("\"}\n".utf8),
             "longer than 4194304 bytes"),
        ]
        for (name, bytes, message) in files {
            Scratch.write(bytes, to: tool.path(name))
            for arguments in [["view", "lists"], ["stats"], ["audit"], ["history", "--item", "x"]] {
                expectOneLine(try tool.run(arguments + ["--journal", name]), status: 3, message)
            }
            let verify = try tool.run(["verify", "--journal", name])
            #expect(verify.status == 1 || verify.status == 3, "\(name): \(verify.stderr)")
            expectOneLine(try tool.run(["apply", "--journal", name], stdin: #"{"type":"CreateList","data":{"name":"X"}}"# + "\n"), status: 3, message)
            #expect(Scratch.bytes(tool.path(name)).count == bytes.count, "\(name) is not changed")
        }
    }

    @Test func commandsThatAreNotCommands() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["apply"], stdin: commandLine("CreateHousehold", id: uuid(0, 0, 1), data: ["name": "Home", "currency": "EUR", "timeZone": "UTC"]) + "\n").status == 0)
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let bad: [([UInt8], String)] = [
            (Array(#"{"type":"CreateList","data":{"name":"Weekly","colour":"red"}}"#.utf8), "unknown_field"),
            (Array(#"{"type":"CreateList","data":{"name":["Weekly"]}}"#.utf8), "invalid_field"),
            (Array(#"{"type":"AddItemToList","data":{"list":42,"item":"00000000-0000-0000-0000-000000000001"}}"#.utf8), "invalid_field"),
            // Not an id, so a name: no live list has it.
            (Array(#"{"type":"AddItemToList","data":{"list":"not-a-uuid","item":"00000000-0000-0000-0000-000000000001"}}"#.utf8), "unknown_list"),
            (Array(#"[{"type":"CreateList","data":{"name":"W"}}]"#.utf8), "malformed_json"),
            ((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 97) }.filter { $0 != 0x0A }, "malformed_json"),
        ]
        for (line, code) in bad {
            let result = try tool.run(["apply", "--json"], stdin: String(decoding: line + [0x0A], as: UTF8.self))
            #expect(result.status == 1, "\(code): \(result.stdout) \(result.stderr)")
            let answer = try result.object()
            #expect((answer["error"] as? [String: Any])?["code"] as? String == code, "\(result.stdout)")
        }
        // invalid UTF-8 straight from a file, not through a Swift String
        Scratch.write(Array(#"{"type":"CreateList","data":{"name":"Caf"#.utf8) + [0xE9] + Array(#""}}"#.utf8) + [0x0A], to: tool.path("latin1.ndjson"))
        let latin1 = try tool.run(["apply", "latin1.ndjson", "--json"])
        #expect(latin1.status == 1)
        #expect((try latin1.object()["error"] as? [String: Any])?["code"] as? String == "malformed_json")
        #expect(((try latin1.object()["error"] as? [String: Any])?["message"] as? String)?.contains("not valid UTF-8") == true)
        // a 100 MB line of input: answered on its own, never read whole
        Scratch.write([UInt8](repeating: UInt8(ascii: "{"), count: 100 << 20), to: tool.path("huge-input.ndjson"))
        let huge = try tool.run(["apply", "huge-input.ndjson", "--json"])
        #expect(huge.status == 1)
        #expect(huge.stderr.isEmpty)
        #expect((try huge.object()["error"] as? [String: Any])?["message"] as? String == "line 1 is \(100 << 20) bytes; a command is at most 1048576 bytes, so it was skipped")
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before, "nothing was written")
    }

    @Test func archivesThatAreNotArchives() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let cases: [(String, [UInt8], String)] = [
            ("empty.json", [], "the file is not JSON"),
            ("object.json", Array(#"{"items":[]}"#.utf8), "an archive is a JSON array of locations"),
            ("noname.json", Array(#"[{"id":"8D83AF5B-4281-4AD9-8061-09E597156CC4","visitationOrder":1,"red":0,"green":0,"blue":0,"opacity":1,"items":[]}]"#.utf8),
             "[0] has no \"name\""),
            ("badid.json", Array(#"[{"id":"nope","name":"A","visitationOrder":1,"red":0,"green":0,"blue":0,"opacity":1,"items":[]}]"#.utf8),
             "[0].id \"nope\" is not a UUID"),
        ]
        for (name, bytes, message) in cases {
            Scratch.write(bytes, to: tool.path(name))
            expectOneLine(try tool.run(["import-sl17", name]), status: 3, message)
        }
        // an archive whose names collide is imported, the second name changed and said (ToolMistakesAndDamageTests);
        // one the household's rules refuse is all or nothing: here the importer is only a viewer
        let archive = #"[{"id":"8D83AF5B-4281-4AD9-8061-09E597156CC4","name":"Dairy","visitationOrder":1,"red":0,"green":0,"blue":0,"opacity":1,"items":[{"id":"E976A9E1-0806-4504-99BF-116004C8DED9","name":"Milk","onList":false,"isAvailable":true,"quantity":1}]}]"#
        Scratch.write(Array(archive.utf8), to: tool.path("archive.json"))
        let closed = #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"UTC"}}"# + "\n"
            + #"{"type":"AddMember","data":{"member":"ana","role":"owner"}}"# + "\n" + #"{"type":"AddMember","data":{"member":"vic","role":"viewer"}}"# + "\n"
        #expect(try tool.run(["apply", "--actor", "ana"], stdin: closed).status == 0)
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        expectOneLine(try tool.run(["import-sl17", "archive.json", "--actor", "vic"]), status: 1, "nothing was written: CreateLocation is rejected — forbidden")
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before)
    }
}
