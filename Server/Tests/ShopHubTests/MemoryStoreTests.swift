import Foundation
import ShopEvents
import Testing
@testable import ShopHub

/// The hub's rules (``HubRules``) over the in-memory store, in process: what every store answers,
/// with whole answers asserted.
@Suite("the hub's rules over the in-memory store")
struct MemoryStoreTests {
    static let start = Timestamp(millisecondsSince1970: 1_800_000_000_000)
    static let household = HouseholdID(UUID(uuidString: "00000000-0000-0000-0000-00000000aaaa")!)

    static func id(_ n: Int) -> CommandID { CommandID(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))!) }

    /// A store holding the household, with ana's phone (token `ana`) and ben's (token `ben`).
    static func store() async throws -> (MemoryHubStorage, ana: TokenHash, ben: TokenHash) {
        let storage = MemoryHubStorage(clock: Clock { start }, ids: .sequential())
        let ana = TokenHash(of: "ana"), ben = TokenHash(of: "ben")
        try await storage.createHousehold(household, firstDevice: DeviceRecord(household: household, name: "ana-phone", actor: "ana",
                                                                              tokenHash: ana, created: start), from: nil)
        try await storage.addDevice(DeviceRecord(household: household, name: "ben-phone", actor: "ben", tokenHash: ben, created: start))
        return (storage, ana, ben)
    }

    static let create = CommandEnvelope(.createHousehold(household: household, name: "Home", currency: "EUR", timeZone: "Europe/Madrid"), id: id(1))
    static func list(_ n: Int, actor: String? = nil) -> CommandEnvelope {
        CommandEnvelope(.createList(list: ListID(UUID(uuidString: String(format: "00000000-0000-0000-0001-%012d", n))!), name: "List \(n)"),
                        id: id(n), actor: actor)
    }

    static func push(_ storage: MemoryHubStorage, _ commands: [CommandEnvelope], as actor: String = "ana", token: TokenHash) async throws -> SyncResponse {
        try await storage.sync(household, .push(commands: commands), as: actor, token: token)
    }

    @Test("hello: the protocol version, then the household and its head once it has events")
    func hello() async throws {
        let (storage, ana, _) = try await Self.store()
        let hello = SyncRequest.hello(protocol: SyncWire.protocolVersion, device: "ana-phone", actor: "ana")
        #expect(try await storage.sync(Self.household, hello, as: "ana", token: ana) == .hello(protocol: SyncWire.protocolVersion, household: nil, head: .empty))
        #expect(try await storage.sync(Self.household, .hello(protocol: 99, device: "d", actor: "ana"), as: "ana", token: ana)
                == .error(SyncFailure(code: "unsupported_protocol", message: "this hub speaks protocol \(SyncWire.protocolVersion), the device 99: update the older one")))
        _ = try await Self.push(storage, [Self.create], token: ana)
        let journal = try await storage.journal(Self.household)
        let head = JournalHead(seq: 1, hash: SHA256.hash(Array(journal.dropLast())))
        #expect(try await storage.sync(Self.household, hello, as: "ana", token: ana) == .hello(protocol: SyncWire.protocolVersion, household: Self.household, head: head))
    }

    @Test("push: wrong_household first, then the household; forbidden; a retry from its record; id_reused; the lines pulled")
    func push() async throws {
        let (storage, ana, _) = try await Self.store()
        let refusal = SyncFailure(code: "wrong_household", message: "household \(Self.household) is new on this hub: its first command is CreateHousehold with \"household\": \"\(Self.household)\"")
        #expect(try await Self.push(storage, [Self.list(3)], token: ana) == .results([PushResult(command: Self.id(3), seqs: [], error: refusal)]))
        #expect(try await Self.push(storage, [Self.create, Self.list(3), Self.list(4, actor: "ben")], token: ana) == .results([
            PushResult(command: Self.id(1), seqs: [1], error: nil), PushResult(command: Self.id(3), seqs: [2], error: nil),
            PushResult(command: Self.id(4), seqs: [], error: SyncFailure(code: "forbidden", message: "this connection is ana's; a command by ben is not taken from it")),
        ]))
        let journal = try await storage.journal(Self.household)
        let reused = CommandEnvelope(.createItem(name: "Milk"), id: Self.id(3))
        #expect(try await Self.push(storage, [Self.list(3), reused], token: ana) == .results([
            PushResult(command: Self.id(3), seqs: [2], error: nil),
            PushResult(command: Self.id(3), seqs: [], error: SyncFailure(code: "id_reused", message:
                "command id \(Self.id(3)) was used for a CreateList already; this CreateItem needs an id of its own (only a retry of that CreateList may repeat it)")),
        ]))
        #expect(try await storage.journal(Self.household) == journal, "a retry appends nothing")
        let lines = journal.split(separator: 0x0A).map(Array.init)
        #expect(lines.count == 2)
        #expect(try await storage.sync(Self.household, .pull(after: 0, hash: .zero), as: "ana", token: ana) == .lines(lines, more: false))
        #expect(try await storage.sync(Self.household, .pull(after: 1, hash: SHA256.hash(lines[0])), as: "ana", token: ana) == .lines([lines[1]], more: false))
        guard case let .event(second) = try EventLineCodec.decodeLine(lines[1]) else { Issue.record("line 2 is not an event"); return }
        #expect(second.seq == 2 && second.actor == "ana" && second.at == Self.start && second.prev == SHA256.hash(lines[0]) && second.command == Self.id(3))
    }

    @Test("pull: diverged unless the device's last line is the hub's")
    func diverged() async throws {
        let (storage, ana, _) = try await Self.store()
        _ = try await Self.push(storage, [Self.create], token: ana)
        func refused(_ why: String) -> SyncResponse {
            .error(SyncFailure(code: "diverged", message: "the device's history is not a prefix of the hub's: \(why)"))
        }
        let other = SHA256.hash(Array("other".utf8))
        #expect(try await storage.sync(Self.household, .pull(after: 1, hash: other), as: "ana", token: ana) == refused("line 1 has another hash on the hub"))
        #expect(try await storage.sync(Self.household, .pull(after: 5, hash: other), as: "ana", token: ana) == refused("the hub has fewer than 5 lines"))
        #expect(try await storage.sync(Self.household, .pull(after: 0, hash: other), as: "ana", token: ana) == refused("before seq 1 the hash is all zeros"))
    }

    @Test("a revoked token is refused (401) on every request, in the step that answers it")
    func revokedToken() async throws {
        let (storage, ana, ben) = try await Self.store()
        _ = try await Self.push(storage, [Self.create], token: ana)
        #expect(try await storage.revokeDevice("ben-phone", of: Self.household, at: Self.start))
        for request in [SyncRequest.hello(protocol: SyncWire.protocolVersion, device: "ben-phone", actor: "ben"), .pull(after: 0, hash: .zero),
                        .push(commands: [Self.list(5)])] {
            await #expect(throws: HubError.unknownToken) { try await storage.sync(Self.household, request, as: "ben", token: ben) }
        }
        #expect(try await storage.journal(Self.household).split(separator: 0x0A).count == 1)
    }

    @Test("a push with a command without id is a bad request, and writes nothing")
    func commandWithoutID() async throws {
        let (storage, ana, _) = try await Self.store()
        await #expect(throws: HubError.badRequest("command 2 of the push has no \"id\": a pushed command names itself, so that a retry is answered from the record")) {
            try await Self.push(storage, [Self.create, CommandEnvelope(.createList(name: "x"))], token: ana)
        }
        #expect(try await storage.journal(Self.household) == [])
    }

    @Test("a journal exported from one store imports into another byte for byte, through the protocol")
    func exportImport() async throws {
        let (storage, ana, _) = try await Self.store()
        _ = try await Self.push(storage, [Self.create, Self.list(3)], token: ana)
        let journal = try await storage.journal(Self.household)
        let other: any HubStorage = MemoryHubStorage()
        try await other.importJournal(Self.household, journal: journal, created: Self.start)
        #expect(try await other.journal(Self.household) == journal)
        #expect(try await other.households() == [Self.household])
        await #expect(throws: HubError.conflict("household_exists", "household \(Self.household) has events here already")) {
            try await other.importJournal(Self.household, journal: journal, created: Self.start)
        }
    }
}
