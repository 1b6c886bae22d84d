import Foundation
import Testing
import ShopEvents

/// The hub's rules on values (``HubRules``): what every hub answers, whatever its storage.
@Suite("Sync: the hub's rules")
struct HubRulesTests {
    static let household = HouseholdID(UUID(uuidString: "00000000-0000-0000-0000-00000000aaaa")!)
    static let now = Timestamp(millisecondsSince1970: 1_800_000_000_000)

    static func id(_ n: Int) -> CommandID { CommandID(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))!) }

    static func create(_ n: Int, household: HouseholdID = household) -> CommandEnvelope {
        CommandEnvelope(.createHousehold(household: household, name: "Home", currency: "EUR", timeZone: "Europe/Madrid"), id: id(n))
    }

    static func list(_ n: Int, name: String, actor: String? = nil) -> CommandEnvelope {
        CommandEnvelope(.createList(list: ListID(UUID(uuidString: String(format: "00000000-0000-0000-0001-%012d", n))!), name: name), id: id(n), actor: actor)
    }

    /// `pushes` decided by `rules` on `fold` with sequential event ids and a fixed clock.
    static func decide(_ rules: HubRules, _ pushes: [HubRules.Push], on fold: HubRules.Fold = HubRules.Fold(),
                       known: [CommandID: HubRules.CommandRecord] = [:]) -> HubRules.Decided {
        rules.push(pushes, on: fold, known: known, now: { now }, ids: .sequential())
    }

    @Test("hello: another protocol is refused; the household is named once it has an event")
    func hello() {
        #expect(HubRules.helloRefusal(protocol: SyncWire.protocolVersion) == nil)
        #expect(HubRules.helloRefusal(protocol: 99) == .error(SyncFailure(
            code: "unsupported_protocol", message: "this hub speaks protocol \(SyncWire.protocolVersion), the device 99: update the older one")))
        let head = JournalHead(seq: 3, hash: SHA256.hash(Array("x".utf8)))
        #expect(HubRules.hello(household: Self.household, head: head) == .hello(protocol: SyncWire.protocolVersion, household: Self.household, head: head))
        #expect(HubRules.hello(household: Self.household, head: .empty) == .hello(protocol: SyncWire.protocolVersion, household: nil, head: .empty))
    }

    @Test("pull: diverged unless the device's last line is the hub's")
    func diverged() {
        let hash = SHA256.hash(Array("line".utf8)), other = SHA256.hash(Array("other".utf8))
        func refused(_ why: String) -> SyncResponse {
            .error(SyncFailure(code: "diverged", message: "the device's history is not a prefix of the hub's: \(why)"))
        }
        #expect(HubRules.diverged(after: 0, hash: .zero, hub: .noJournal) == nil)
        #expect(HubRules.diverged(after: 2, hash: hash, hub: .noJournal) == refused("the hub's journal is empty"))
        #expect(HubRules.diverged(after: 0, hash: .zero, hub: .missing) == nil)
        #expect(HubRules.diverged(after: 0, hash: hash, hub: .missing) == refused("before seq 1 the hash is all zeros"))
        #expect(HubRules.diverged(after: 5, hash: hash, hub: .missing) == refused("the hub has fewer than 5 lines"))
        #expect(HubRules.diverged(after: 5, hash: hash, hub: .hash(other)) == refused("line 5 has another hash on the hub"))
        #expect(HubRules.diverged(after: 5, hash: hash, hub: .hash(hash)) == nil)
    }

    @Test("pull: a page holds whole commands, past its limit for the last one, and leaves a command cut short")
    func page() {
        // An AddMember that makes its issuer an owner is two lines; a household and a list are one each.
        let members = HubRules(defaultActor: "ana")
        let created = Self.decide(members, [HubRules.Push(commands: [Self.create(1), Self.list(2, name: "Week")], actor: nil)])
        let added = Self.decide(members, [HubRules.Push(commands: [CommandEnvelope(.addMember(member: "ben", role: .member), id: Self.id(3))],
                                                        actor: nil)], on: created.fold)
        let lines = (created.lines + added.lines).map(\.bytes)
        #expect(added.lines.count == 2)
        var page = HubRules.Page(limit: 2)
        #expect(lines.map { page.add($0) } == [true, true, false, false])
        #expect(page.wholeLines == Array(lines[0..<2]) && page.full)
        var past = HubRules.Page(limit: 3)
        #expect(lines.map { past.add($0) } == [true, true, true, true])
        #expect(past.wholeLines == lines && !past.full)
        var cut = HubRules.Page(limit: 10)
        #expect(lines.prefix(3).map { cut.add($0) } == [true, true, true])
        #expect(cut.wholeLines == Array(lines[0..<2]) && !cut.full && !cut.endsCommand)
    }

    @Test("push: the lines of each command, chained, and its record; a retry answered from it, an id reused refused")
    func pushAndRetry() {
        let rules = HubRules(defaultActor: "hub")
        let first = Self.decide(rules, [HubRules.Push(commands: [Self.create(1), Self.list(2, name: "Week")], actor: "ana")])
        #expect(first.results == [[PushResult(command: Self.id(1), seqs: [1], error: nil), PushResult(command: Self.id(2), seqs: [2], error: nil)]])
        #expect(first.lines.map(\.event.seq) == [1, 2])
        #expect(first.lines.map(\.event.prev) == [.zero, first.lines[0].hash])
        #expect(first.lines.map(\.hash) == first.lines.map { SHA256.hash($0.bytes) })
        #expect(first.lines.allSatisfy { $0.event.actor == "ana" && $0.event.at == Self.now })
        #expect(first.lines.compactMap { try? EventLineCodec.decodeLine($0.bytes) } == first.lines.map { JournalLine.event($0.event) })
        #expect(first.records.map(\.id) == [Self.id(1), Self.id(2)])
        #expect(first.records.map(\.record) == [HubRules.CommandRecord(first: 1, count: 1, type: .createHousehold),
                                                HubRules.CommandRecord(first: 2, count: 1, type: .createList)])
        #expect(first.fold.head == JournalHead(seq: 2, hash: first.lines[1].hash))
        #expect(first.fold.lastAt == Self.now)
        let known = Dictionary(uniqueKeysWithValues: first.records.map { ($0.id, $0.record) })
        let again = Self.decide(rules, [HubRules.Push(commands: [Self.list(2, name: "Week"), CommandEnvelope(.renameItem(item: ItemID(), name: "x"), id: Self.id(1))],
                                                      actor: "ana")], on: first.fold, known: known)
        let reused = "command id \(Self.id(1)) was used for a CreateHousehold already; this RenameItem needs an id of its own (only a retry of that CreateHousehold may repeat it)"
        #expect(again.results == [[PushResult(command: Self.id(2), seqs: [2], error: nil),
                                   PushResult(command: Self.id(1), seqs: [], error: SyncFailure(code: "id_reused", message: reused))]])
        #expect(again.lines.isEmpty && again.records.isEmpty && again.fold.head == first.fold.head)
    }

    @Test("push: a command by another actor than the connection's is forbidden; one by none is the connection's")
    func forbidden() {
        let rules = HubRules(defaultActor: "hub")
        let decided = Self.decide(rules, [HubRules.Push(commands: [Self.create(1), Self.list(2, name: "Ben's", actor: "ben")], actor: "ana")])
        #expect(decided.results == [[PushResult(command: Self.id(1), seqs: [1], error: nil), PushResult(command: Self.id(2), seqs: [], error: SyncFailure(
            code: "forbidden", message: "this connection is ana's; a command by ben is not taken from it"))]])
        #expect(decided.lines.map(\.event.actor) == ["ana"])
        let open = Self.decide(rules, [HubRules.Push(commands: [Self.create(1)], actor: nil)])
        #expect(open.lines.map(\.event.actor) == ["hub"])
    }

    @Test("push: a new hosted household's first command creates it; until one is taken, others are wrong_household")
    func wrongHousehold() {
        let rules = HubRules(household: Self.household, defaultActor: "hub")
        let other = HouseholdID(UUID(uuidString: "00000000-0000-0000-0000-00000000bbbb")!)
        let refusal = SyncFailure(code: "wrong_household", message: "household \(Self.household) is new on this hub: its first command is CreateHousehold with \"household\": \"\(Self.household)\"")
        let decided = Self.decide(rules, [HubRules.Push(commands: [Self.list(1, name: "Week"), Self.create(2, household: other)], actor: "ana"),
                                          HubRules.Push(commands: [Self.create(3), Self.list(4, name: "Week")], actor: "ana")])
        #expect(decided.results == [[PushResult(command: Self.id(1), seqs: [], error: refusal), PushResult(command: Self.id(2), seqs: [], error: refusal)],
                                    [PushResult(command: Self.id(3), seqs: [1], error: nil), PushResult(command: Self.id(4), seqs: [2], error: nil)]])
        #expect(Self.decide(HubRules(defaultActor: "hub"), [HubRules.Push(commands: [Self.create(2, household: other)], actor: "ana")]).results
                == [[PushResult(command: Self.id(2), seqs: [1], error: nil)]])
    }

    @Test("push: a command without id is a bad request; an event id taken is replaced")
    func badRequestAndClaims() {
        #expect(HubRules.refusal(ofPush: [Self.create(1), CommandEnvelope(.createList(name: "x"))]) == SyncFailure(
            code: "bad_request", message: "command 2 of the push has no \"id\": a pushed command names itself, so that a retry is answered from the record"))
        #expect(HubRules.refusal(ofPush: [Self.create(1)]) == nil)
        let taken: EventID = IDGenerator.sequential().make()
        func decided(claiming claim: (EventID) -> Bool) -> [EventID] {
            HubRules().push([HubRules.Push(commands: [Self.create(1)], actor: "ana")], on: HubRules.Fold(), known: [:],
                            now: { Self.now }, ids: .sequential(), claim: claim).lines.map(\.event.id)
        }
        #expect(decided { _ in true } == [taken])
        let replaced = decided { $0 != taken }
        #expect(replaced.count == 1 && replaced != [taken] && replaced == decided { $0 != taken })
    }
}
