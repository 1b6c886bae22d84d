import Foundation
import ShopEvents
import ShopTestSupport
import Testing
@testable import ShopHub

/// The command rules of docs/COMMANDS.md on the hosted hub: a pushed purchase more than 24 hours
/// after the hub's time is refused `in_future`, and a command id reused for another type of command is
/// refused `id_reused` (a retry of the same type is answered with its first seqs), on the files and on
/// PostgreSQL (plain and partitioned, and with several processes over one database). Each refusal
/// leaves the journal byte for byte as it was.
@Suite("the hosted hub: the command rules", .serialized)
struct HubCommandRuleTests {
    static let postgres = Comment(rawValue: Backend.noPostgres)

    // MARK: Item 3: in_future

    @Test("a pushed purchase 2 days after the hub's time is refused in_future, 23 hours after is taken; a pushed `at` is refused; the journal is unchanged",
          arguments: [Backend.files])
    func purchaseInFuture(_ backend: Backend) async throws { try await Self.inFutureBody(backend) }

    @Test("a pushed purchase 2 days after the hub's time is refused in_future — on PostgreSQL", .enabled(if: Backend.postgresAvailable, postgres),
          arguments: [Backend.postgres, .partitioned])
    func purchaseInFutureOnPostgres(_ backend: Backend) async throws { try await Self.inFutureBody(backend) }

    static func inFutureBody(_ backend: Backend) async throws {
        let (hubs, folder) = try HubStorageRuleTests.start(backend, 1)
        defer { HubStorageRuleTests.stop(hubs, folder) }
        let hub = hubs[0]
        let household = try await RuleHousehold.make(on: hub)
        let milk = ItemID()
        let created = CommandEnvelope(.createItem(item: milk, name: "Milk"), id: CommandID())
        let seq = try await household.head(through: hub).seq
        let made = try await household.push([created], through: hub)
        #expect(made.status == 200 && made.body == SyncWire.encode(SyncResponse.results([PushResult(command: created.id!, seqs: [seq + 1], error: nil)])),
                "\(made.status) \(made.text)")
        let journal = try hub.journal(household.id)

        // Two days after the hub's time: refused, with the hub's `at` (its clock, between the two readings) in the message.
        let before = Timestamp(Date())
        let late = before.adding(milliseconds: 2 * 24 * 3_600_000)
        let purchase = CommandEnvelope(.purchaseItem(item: milk, purchasedAt: late), id: CommandID())
        let refused = try await household.push([purchase], through: hub)
        let after = Timestamp(Date())
        let at = try #require(Self.commandAt(in: refused.text), "\(refused.text)")
        #expect(at >= before && at <= after, "the hub's at \(at) is not between \(before) and \(after)")
        let violation = RuleViolation(.inFuture, "purchasedAt \(late) is more than 24 hours after the command's at (\(at)): a purchase is recorded when it is made or later",
                                      field: "purchasedAt")
        let expected = SyncWire.encode(SyncResponse.results([PushResult(command: purchase.id!, seqs: [], error: SyncFailure(code: "in_future", message: violation.message))]))
        #expect(refused.status == 200 && refused.body == expected, "\(refused.status) \(refused.text)")
        #expect(try hub.journal(household.id) == journal, "a refusal writes nothing")

        // A pushed command carries no `at` (the hub stamps its own): one in 2099 is a bad request, and writes nothing.
        var future = CommandEnvelope(.createList(name: "Later"), id: CommandID())
        future.at = Timestamp(millisecondsSince1970: 4_070_908_800_000)   // 2099-01-01
        let stamped = try await household.push([future], through: hub)
        #expect(stamped.status == 400 && stamped.body == HubError.badRequest(#"command 1 of the push has an "at": pushed commands carry none, the hub stamps its own time"#).body,
                "\(stamped.status) \(stamped.text)")
        #expect(try hub.journal(household.id) == journal, "a refusal writes nothing")

        // 23 hours after the hub's time: taken, one line, with that purchasedAt.
        let soon = Timestamp(Date()).adding(milliseconds: 23 * 3_600_000)
        let taken = CommandEnvelope(.purchaseItem(item: milk, purchasedAt: soon), id: CommandID())
        let bought = try await household.push([taken], through: hub)
        #expect(bought.status == 200 && bought.body == SyncWire.encode(SyncResponse.results([PushResult(command: taken.id!, seqs: [seq + 2], error: nil)])),
                "\(bought.status) \(bought.text)")
        let lines = try hub.journal(household.id).split(separator: 0x0A)
        #expect(lines.count == seq + 2 && Array(lines.dropLast()) == journal.split(separator: 0x0A))
        guard case let .event(recorded)? = try? EventLineCodec.decodeLine(Array(lines.last ?? [])),
              case let .itemPurchased(_, item, _, _, _, _, purchasedAt, _) = recorded.event else { Issue.record("the last line is no ItemPurchased"); return }
        #expect(item == milk && purchasedAt == soon && recorded.command == taken.id)
    }

    /// A household with Milk created and bought in one push (its answer checked whole): the household,
    /// its head's seq before the push, Milk's id, and the two commands.
    static func milkBought(on hub: HubProcess) async throws -> (RuleHousehold, Int, ItemID, created: CommandEnvelope, purchase: CommandEnvelope) {
        let household = try await RuleHousehold.make(on: hub)
        let seq = try await household.head(through: hub).seq
        let milk = ItemID()
        let created = CommandEnvelope(.createItem(item: milk, name: "Milk"), id: CommandID())
        let purchase = CommandEnvelope(.purchaseItem(item: milk), id: CommandID())
        let first = try await household.push([created, purchase], through: hub)
        let answer = SyncResponse.results([PushResult(command: created.id!, seqs: [seq + 1], error: nil), PushResult(command: purchase.id!, seqs: [seq + 2], error: nil)])
        #expect(first.status == 200 && first.body == SyncWire.encode(answer), "\(first.status) \(first.text)")
        return (household, seq, milk, created, purchase)
    }

    /// The `at` named in an in_future refusal of a `purchasedAt`: "… the command's at (AT) …".
    static func commandAt(in text: String) -> Timestamp? {
        guard let start = text.range(of: "the command's at (")?.upperBound,
              let end = text[start...].firstIndex(of: ")") else { return nil }
        return Timestamp(String(text[start..<end]))
    }

    // MARK: Item 4: id_reused

    @Test("a command id reused for another type is refused id_reused; a retry of the same type is answered with its first seqs; nothing is written",
          arguments: [(Backend.files, 1)])
    func idReused(_ backend: Backend, processes: Int) async throws { try await Self.idReusedBody(backend, processes) }

    @Test("a command id reused for another type is refused id_reused — on PostgreSQL, one and three processes", .enabled(if: Backend.postgresAvailable, postgres),
          arguments: [(Backend.postgres, 1), (.postgres, 3), (.partitioned, 3)])
    func idReusedOnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.idReusedBody(backend, processes) }

    static func idReusedBody(_ backend: Backend, _ processes: Int) async throws {
        let (hubs, folder) = try HubStorageRuleTests.start(backend, processes)
        defer { HubStorageRuleTests.stop(hubs, folder) }
        let (household, seq, milk, created, purchase) = try await milkBought(on: hubs[0])
        let firstSeqs = [PushResult(command: created.id!, seqs: [seq + 1], error: nil), PushResult(command: purchase.id!, seqs: [seq + 2], error: nil)]
        let journal = try hubs[0].journal(household.id)

        // The issue's case: a CreateList under the purchase's id "created" a purchase and no list.
        let list = CommandEnvelope(.createList(name: "Weekly"), id: purchase.id)
        let reused = SyncWire.encode(SyncResponse.results([PushResult(command: purchase.id!, seqs: [], error: SyncFailure(code: "id_reused", message:
            "command id \(purchase.id!) was used for a PurchaseItem already; this CreateList needs an id of its own (only a retry of that PurchaseItem may repeat it)"))]))
        // A CreateItem under it too (another item), and a PurchaseItem under the CreateItem's.
        let item = CommandEnvelope(.createItem(name: "Bread"), id: purchase.id)
        let reusedByItem = SyncWire.encode(SyncResponse.results([PushResult(command: purchase.id!, seqs: [], error: SyncFailure(code: "id_reused", message:
            "command id \(purchase.id!) was used for a PurchaseItem already; this CreateItem needs an id of its own (only a retry of that PurchaseItem may repeat it)"))]))
        let bought = CommandEnvelope(.purchaseItem(item: milk), id: created.id)
        let reusedByPurchase = SyncWire.encode(SyncResponse.results([PushResult(command: created.id!, seqs: [], error: SyncFailure(code: "id_reused", message:
            "command id \(created.id!) was used for a CreateItem already; this PurchaseItem needs an id of its own (only a retry of that CreateItem may repeat it)"))]))
        // On the process that took the first, then on every other, twice.
        for through in hubs + hubs {
            for (command, answer) in [(list, reused), (item, reusedByItem), (bought, reusedByPurchase)] {
                let pushed = try await household.push([command], through: through)
                #expect(pushed.status == 200 && pushed.body == answer, "\(command.command.kind) on \(through.base): \(pushed.status) \(pushed.text)")
            }
            // The retries (of the same type, the same commands) are answered with their first seqs.
            let again = try await household.push([created, purchase], through: through)
            #expect(again.status == 200 && again.body == SyncWire.encode(SyncResponse.results(firstSeqs)), "retry on \(through.base): \(again.status) \(again.text)")
        }
        #expect(try hubs[0].journal(household.id) == journal, "a refusal (and a retry) writes nothing")

        // In one push: an id reused, a retry, a new command, and the new command's id reused after it.
        let bread = CommandEnvelope(.createItem(name: "Bread"), id: CommandID())
        let breadList = CommandEnvelope(.createList(name: "Bakery"), id: bread.id)
        let mixed = try await household.push([list, purchase, bread, breadList], through: hubs[processes - 1])
        let mixedAnswer = SyncWire.encode(SyncResponse.results([
            PushResult(command: purchase.id!, seqs: [], error: SyncFailure(code: "id_reused", message:
                "command id \(purchase.id!) was used for a PurchaseItem already; this CreateList needs an id of its own (only a retry of that PurchaseItem may repeat it)")),
            PushResult(command: purchase.id!, seqs: [seq + 2], error: nil),
            PushResult(command: bread.id!, seqs: [seq + 3], error: nil),
            PushResult(command: bread.id!, seqs: [], error: SyncFailure(code: "id_reused", message:
                "command id \(bread.id!) was used for a CreateItem already; this CreateList needs an id of its own (only a retry of that CreateItem may repeat it)")),
        ]))
        #expect(mixed.status == 200 && mixed.body == mixedAnswer, "\(mixed.status) \(mixed.text)")
        let lines = try hubs[0].journal(household.id).split(separator: 0x0A)
        #expect(lines.count == seq + 3 && Array(lines.dropLast()) == journal.split(separator: 0x0A), "only Bread's line is added")
    }

    @Test("a household imported into PostgreSQL keeps the rule: its recorded commands' types come from its imported lines",
          .enabled(if: Backend.postgresAvailable, postgres))
    func idReusedAfterImport() async throws {
        let (hubs, folder) = try HubStorageRuleTests.start(.files, 1)
        defer { HubStorageRuleTests.stop(hubs, folder) }
        let (household, seq, _, created, purchase) = try await Self.milkBought(on: hubs[0])
        let journal = try hubs[0].journal(household.id)

        let tool = ToolRunner()
        defer { tool.remove() }
        let original = tool.path("original.ndjson")
        Scratch.write(journal, to: original)
        let database = try Backend.newDatabase()
        let imported = try tool.run(["household", "import", household.id.description, original, "--postgres", database, "--device", "ana-tablet", "--actor", "ana"],
                                    executable: Programs.shopHub)
        #expect(imported.status == 0, "\(imported.stderr)")
        let token = try #require(imported.stdout.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
        let postgres = try HubProcess(data: database, backend: .postgres, arguments: ["--requests-per-second", "1000"])
        defer { #expect(postgres.terminate() == 0) }
        let tablet = RuleHousehold(id: household.id, token: token)

        let list = CommandEnvelope(.createList(name: "Weekly"), id: purchase.id)
        let refused = try await tablet.push([list], through: postgres)
        #expect(refused.status == 200 && refused.body == SyncWire.encode(SyncResponse.results([PushResult(command: purchase.id!, seqs: [], error: SyncFailure(
            code: "id_reused", message: "command id \(purchase.id!) was used for a PurchaseItem already; this CreateList needs an id of its own (only a retry of that PurchaseItem may repeat it)"))])),
                "\(refused.status) \(refused.text)")
        let retried = try await tablet.push([created, purchase], through: postgres)
        #expect(retried.status == 200 && retried.body == SyncWire.encode(SyncResponse.results([
            PushResult(command: created.id!, seqs: [seq + 1], error: nil), PushResult(command: purchase.id!, seqs: [seq + 2], error: nil)])),
                "\(retried.status) \(retried.text)")
        #expect(try postgres.journal(household.id) == journal, "a refusal (and a retry) writes nothing")
    }
}
