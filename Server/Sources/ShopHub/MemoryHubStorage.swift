import Foundation
import ShopEvents

/// A hub's storage in memory, for tests and trials (as Hummingbird's examples keep a memory
/// repository beside PostgreSQL): nothing is kept past the process. It holds each household's
/// lines, head and command records and the hub's records, and answers hello, pull and push
/// through the core's ``HubRules`` like the file and PostgreSQL storages — what a store adds to
/// the rules is where lines and records live, nothing else. A sync request's token is checked
/// live in the same step that answers it, so a revoked device is refused at once.
///
/// ```swift
/// let storage = MemoryHubStorage(clock: .system, ids: .random)
/// let household = HouseholdID()
/// let phone = DeviceRecord(household: household, name: "ana-phone", actor: "ana",
///                          tokenHash: TokenHash(of: Secrets.token()), created: Clock.system.now())
/// try await storage.createHousehold(household, firstDevice: phone, from: nil)
/// print(try await storage.sync(household, .hello(protocol: 1, device: "ana-phone", actor: "ana"), as: "ana"))   // a hello, head 0
/// ```
public actor MemoryHubStorage: HubStorage {
    private let clock: Clock
    private let ids: IDGenerator

    /// One household: when it was made (and from where), its journal's lines and what they fold to.
    private struct Household {
        var created: Timestamp
        var address: String?
        var lines: [[UInt8]] = []
        var fold = HubRules.Fold()
        var records: [CommandID: HubRules.CommandRecord] = [:]
    }

    private var households: [HouseholdID: Household] = [:]
    private var order: [HouseholdID] = []
    private var devices: [TokenHash: DeviceRecord] = [:]
    private var deviceOrder: [TokenHash] = []
    private var invites: [TokenHash: InviteRecord] = [:]
    private var usedInvites: Set<TokenHash> = []

    public init(clock: Clock = .system, ids: IDGenerator = .random) {
        self.clock = clock
        self.ids = ids
    }

    // MARK: Households

    public func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        guard households[household] == nil else { throw HubError.conflict("household_exists", "household \(household) exists already") }
        households[household] = Household(created: firstDevice.created, address: address)
        order.append(household)
        try enrol(firstDevice)
    }

    public func householdExists(_ household: HouseholdID) async throws -> Bool { households[household] != nil }

    public func households() async throws -> [HouseholdID] { order }

    public func householdsCreated(from address: String, since: Timestamp) async throws -> Int {
        households.values.filter { $0.address == address && $0.created >= since }.count
    }

    // MARK: The journal

    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String) async throws -> SyncResponse {
        try answer(household, request, as: actor)
    }

    /// Answered only while `token` is live: checked in the same step as the answer.
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash) async throws -> SyncResponse {
        guard let device = devices[token], device.household == household, device.revoked == nil else { throw HubError.unknownToken }
        return try answer(household, request, as: actor)
    }

    private func answer(_ id: HouseholdID, _ request: SyncRequest, as actor: String) throws -> SyncResponse {
        guard var household = households[id] else { throw HubError.unknownHousehold(id.description) }
        switch request {
        case let .hello(version, _, _):
            return HubRules.helloRefusal(protocol: version) ?? HubRules.hello(household: id, head: household.fold.head)
        case let .pull(after, hash):
            let found: HubRules.LineAfter = after >= 1 && after <= household.lines.count ? .hash(SHA256.hash(household.lines[after - 1])) : .missing
            if let refusal = HubRules.diverged(after: after, hash: hash, hub: found) { return refusal }
            var page = HubRules.Page(limit: HubRules().linesPerPull)
            for line in household.lines.dropFirst(after) where !page.add(line) { break }
            return .lines(page.wholeLines, more: page.full)
        case let .push(commands):
            if let refusal = HubRules.refusal(ofPush: commands) { throw HubError.badRequest(refusal.message) }
            let pushed = Set(commands.compactMap(\.id))
            let known = household.records.filter { pushed.contains($0.key) }
            let now = clock.now()
            var fold = HubRules.Fold()
            swap(&fold, &household.fold)
            households[id] = household   // the state held once while it is decided on: changed in place, not copied
            let decided = HubRules(household: id).push([HubRules.Push(commands: commands, actor: actor)], on: consume fold, known: known,
                                                       now: { now }, ids: ids)
            household.lines += decided.lines.map(\.bytes)
            for (command, record) in decided.records { household.records[command] = record }
            household.fold = decided.fold
            households[id] = household
            return .results(decided.results.first ?? [])
        }
    }

    public func journal(_ household: HouseholdID) async throws -> [UInt8] {
        guard let found = households[household] else { throw HubError.unknownHousehold(household.description) }
        return found.lines.flatMap { $0 + [0x0A] }
    }

    /// Every line's chain is checked as it is folded; refused if the household has events already.
    public func importJournal(_ household: HouseholdID, journal bytes: [UInt8], created: Timestamp) async throws {
        var found = households[household] ?? Household(created: created)
        guard found.lines.isEmpty else { throw HubError.conflict("household_exists", "household \(household) has events here already") }
        for (index, line) in bytes.split(separator: 0x0A).map(Array.init).enumerated() {
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line),
                  recorded.seq == found.fold.head.seq + 1, recorded.prev == found.fold.head.hash else {
                throw HubError.badRequest("line \(index + 1) is not the next event of the chain")
            }
            let type = CommandType(endingWith: recorded.event.kind)
            if let record = found.records[recorded.command], record.first + record.count == recorded.seq {
                found.records[recorded.command] = HubRules.CommandRecord(first: record.first, count: record.count + 1, type: type)
            } else {
                found.records[recorded.command] = HubRules.CommandRecord(first: recorded.seq, count: 1, type: type)
            }
            found.fold.apply(recorded, hash: SHA256.hash(line))
            found.lines.append(line)
        }
        if households[household] == nil { order.append(household) }
        households[household] = found
    }

    /// None: the lines are in memory (`household export` writes them out).
    public nonisolated func journalFile(_ household: HouseholdID) -> String? { nil }

    // MARK: Devices and invites

    public func device(tokenHash: TokenHash) async throws -> DeviceRecord? { devices[tokenHash] }

    public func devices(of household: HouseholdID) async throws -> [DeviceRecord] {
        deviceOrder.compactMap { devices[$0] }.filter { $0.household == household && $0.revoked == nil }
    }

    public func addDevice(_ device: DeviceRecord) async throws { try enrol(device) }

    private func enrol(_ device: DeviceRecord) throws {
        if devices.values.contains(where: { $0.household == device.household && $0.name == device.name && $0.revoked == nil }) {
            throw HubError.conflict("device_exists", "the household has a device named \(device.name) already: choose another name, or revoke that one")
        }
        if devices[device.tokenHash] == nil { deviceOrder.append(device.tokenHash) }
        devices[device.tokenHash] = device
    }

    public func revokeDevice(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool {
        guard let device = devices.values.first(where: { $0.household == household && $0.name == name && $0.revoked == nil }) else { return false }
        devices[device.tokenHash]?.revoked = at
        return true
    }

    public func seen(_ device: DeviceRecord, at: Timestamp) async { devices[device.tokenHash]?.lastSeen = at }

    public func addInvite(_ invite: InviteRecord) async throws { invites[invite.codeHash] = invite }

    public func redeemInvite(codeHash: TokenHash, at now: Timestamp,
                             enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)? {
        guard let invite = invites[codeHash], !usedInvites.contains(codeHash), invite.expires > now else { return nil }
        usedInvites.insert(codeHash)
        let enrolled = device(invite)
        try enrol(enrolled)
        return (invite, enrolled)
    }

    public func checkReady() async throws {}
}
