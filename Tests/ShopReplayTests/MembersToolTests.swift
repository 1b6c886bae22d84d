import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Members through the tool, as a family would set them up.
@Suite struct MembersToolTests {
    @Test func membersViewHistoryAndRolesAtTheTool() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let open = try tool.run(["view", "members", "--json"]).object()
        #expect(open["open"] as? Bool == true)
        #expect((open["members"] as? [Any])?.isEmpty == true)
        #expect(try tool.run(["view", "members"]).stdout.contains("No members: the household is open"))

        let setup = """
        {"type":"AddMember","data":{"member":"ben","role":"member"}}
        {"type":"AddMember","actor":"ana","data":{"member":"oma","role":"viewer"}}

        """
        let added = try tool.run(["apply", "--actor", "ana", "--json"], stdin: setup)
        #expect(added.status == 0, "\(added.stdout)")
        #expect(added.stdout.split(separator: "\n").first?.contains(#""seqs":[10,11]"#) == true, "ana becomes an owner in the same command")

        let members = try tool.run(["view", "members", "--json"]).object()
        #expect(members["open"] as? Bool == false)
        let rows = members["members"] as? [[String: String]] ?? []
        let events = try JournalReader.readAll(path: tool.path("shop.ndjson"))
        #expect(rows == [
            ["member": "ana", "role": "owner", "joinedAt": events[9].at.description, "addedBy": "ana"],
            ["member": "ben", "role": "member", "joinedAt": events[10].at.description, "addedBy": "ana"],
            ["member": "oma", "role": "viewer", "joinedAt": events[11].at.description, "addedBy": "ana"],
        ])

        let before = Scratch.bytes(tool.path("shop.ndjson"))
        let viewer = try tool.run(["apply", "--actor", "oma", "--json"], stdin: #"{"type":"CreateList","data":{"name":"Oma's"}}"# + "\n")
        #expect(viewer.status == 1)
        #expect(viewer.stdout.contains(#""code":"forbidden""#))
        let stranger = try tool.run(["apply", "--actor", "eve", "--json"], stdin: #"{"type":"CreateList","data":{"name":"Eve's"}}"# + "\n")
        #expect(stranger.stdout.contains(#""code":"not_a_member""#))
        let purge = try tool.run(["apply", "--actor", "ben", "--json"], stdin: #"{"type":"RemoveMember","data":{"member":"oma"}}"# + "\n")
        #expect(purge.stdout.contains(#""code":"forbidden""#))
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before)

        let leave = try tool.run(["apply", "--actor", "ben"], stdin: #"{"type":"RemoveMember","data":{"member":"ben"}}"# + "\n")
        #expect(leave.status == 0)
        let history = try tool.run(["history", "--member", "ben", "--json"]).object()
        let types = (history["events"] as? [[String: Any]])?.map { $0["type"] as? String } ?? []
        // ben's purchase (seq 9), his being added, his leaving.
        #expect(types == ["ItemPurchased", "MemberAdded", "MemberRemoved"])
        #expect(try tool.run(["history", "--member", "nobody"]).status == 2)
        #expect(try tool.run(["verify"]).status == 0)
        #expect(try tool.run(["apply", "--help"]).stdout.contains("viewer   no command"))
    }

    /// A purchase of a deleted item, recorded after the fact, counts in stats and audit under the item's last name.
    @Test func aLatePurchaseOfADeletedItemCounts() throws {
        let tool = try ToolRunner.withHousehold()
        defer { tool.remove() }
        let commands = """
        {"type":"RenameItem","data":{"item":"Milk","name":"Whole milk"}}
        {"type":"DeleteItem","data":{"item":"Whole milk"}}
        {"type":"PurchaseItem","data":{"item":"00000000-0000-0000-0000-000000000001","purchasedAt":"2026-01-10T09:00:00.000Z","quantity":2}}
        {"type":"PurchaseItem","data":{"item":"00000000-0000-0000-0000-000000000001"}}

        """
        let result = try tool.run(["apply", "--actor", "ana", "--json"], stdin: commands)
        let answers = result.stdout.split(separator: "\n").map(String.init)
        #expect(answers.count == 4)
        #expect(answers[2].contains(#""ok":true"#))
        #expect(answers[3].contains(#""code":"item_deleted""#))
        let stats = try tool.run(["stats", "--json"]).object()
        let milk = (stats["items"] as? [[String: Any]])?.first { $0["item"] as? String == "00000000-0000-0000-0000-000000000001" }
        #expect(milk?["name"] as? String == "Whole milk")
        #expect(milk?["purchases"] as? Int == 1)
        #expect(milk?["spend"] as? Int == 238)
        let audit = try tool.run(["audit", "--json"]).object()
        let last = (audit["purchases"] as? [[String: Any]])?.last
        #expect(last?["itemName"] as? String == "Whole milk")
        #expect(last?["purchasedAt"] as? String == "2026-01-10T09:00:00.000Z")
        #expect(last?["location"] as? String == "00000000-0000-0000-0000-000000000052", "the item's last location")
        #expect(try tool.run(["verify"]).status == 0)
    }
}
