import Foundation
import ShopEvents
import ShopTestSupport
import Testing

@Suite("moving a household between storages")
struct MoveTests {
    @Test("a household moves from a file hub into PostgreSQL and back, byte for byte: every export verifies, and a device cloned from PostgreSQL is byte-identical to it",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)))
    func fileToPostgresAndBack() async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try HubProcess(data: folder.appendingPathComponent("files").path)
        let world = SyncWorld()
        let (household, list, items) = try HostedHousehold.make(on: files, world: world)
        try world.apply("ana", actor: "ana", [#"{"type":"PurchaseItem","data":{"item":"\#(items[0])","list":"\#(list)"}}"#])
        #expect(try world.sync("ana", actor: "ana").status == 0)
        #expect(files.terminate() == 0)
        let tool = world.tool
        let original = tool.path("original.ndjson")
        func hub(_ arguments: [String]) throws -> ToolRunner.Result { try tool.run(arguments, executable: Programs.shopHub) }

        #expect(try hub(["household", "export", household.id.description, "--data", files.data, "--out", original]).status == 0)
        #expect(Scratch.bytes(original) == Scratch.bytes(world.path("ana")))
        // Into PostgreSQL, with an owner's device to reach it.
        let database = try Backend.newDatabase()
        let imported = try hub(["household", "import", household.id.description, original, "--postgres", database, "--device", "ana-tablet", "--actor", "ana"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let token = try #require(imported.stdout.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
        #expect(try hub(["household", "verify", household.id.description, "--postgres", database]).status == 0)
        let again = try hub(["household", "import", household.id.description, original, "--postgres", database])
        #expect(again.status != 0 && again.stderr.contains("household_exists"), "a household is imported once")
        // A device cloned from the PostgreSQL hub holds the same bytes.
        let postgres = try HubProcess(data: database, backend: .postgres)
        let cloned = try tool.run(["clone", "--hub", "\(postgres.base)/v1/households/\(household.id)", "--token", token,
                                   "--journal", world.path("tablet"), "--device", "ana-tablet", "--actor", "ana"])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        #expect(Scratch.bytes(world.path("tablet")) == Scratch.bytes(original))
        #expect(postgres.terminate() == 0)
        // And back into a new file hub.
        let exported = tool.path("exported.ndjson")
        #expect(try hub(["household", "export", household.id.description, "--postgres", database, "--out", exported]).status == 0)
        #expect(Scratch.bytes(exported) == Scratch.bytes(original))
        let back = folder.appendingPathComponent("back").path
        #expect(try hub(["household", "import", household.id.description, exported, "--data", back]).status == 0)
        #expect(Scratch.bytes(back + "/households/\(household.id).ndjson") == Scratch.bytes(original))
        #expect(try hub(["household", "verify", household.id.description, "--data", back]).status == 0)
        // A damaged journal is refused, and nothing imported.
        var damaged = Scratch.bytes(original)
        damaged[damaged.count / 2] = UInt8(ascii: "#")
        Scratch.write(damaged, to: tool.path("damaged.ndjson"))
        let refused = try hub(["household", "import", HouseholdID().description, tool.path("damaged.ndjson"), "--postgres", database])
        #expect(refused.status != 0 && refused.stderr.contains("does not verify"))
    }
}
