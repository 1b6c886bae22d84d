import Foundation
import ShopEvents
import Synchronization

/// What ``MemoryHubStorage`` holds: its households (each one's lines, their hashes and its command
/// records) and the hub's records (devices, invites).
struct MemoryHubState: Sendable {
    struct Household: Sendable {
        var created: Timestamp
        var address: String?
        var lines: [[UInt8]] = []
        var hashes: [SHA256Digest] = []
        var records: [CommandID: HubRules.CommandRecord] = [:]
        var head: JournalHead { JournalHead(seq: lines.count, hash: hashes.last ?? .zero) }
    }

    var households: [HouseholdID: Household] = [:]
    var order: [HouseholdID] = []
    var devices: [TokenHash: DeviceRecord] = [:]
    var deviceOrder: [TokenHash] = []
    var invites: [TokenHash: InviteRecord] = [:]
    var usedInvites: Set<TokenHash> = []

    /// Whether `token` (a hash, hex) is a live device of `household`; true for nil (checked already).
    func live(_ token: String?, of household: HouseholdID) -> Bool {
        guard let token else { return true }
        guard let hash = TokenHash(hex: token), let device = devices[hash] else { return false }
        return device.household == household && device.revoked == nil
    }

    func lines(of id: HouseholdID, after: Int, limit: Int?) -> HubLines {
        guard let household = households[id] else { return HubLines(after: .missing, lines: []) }
        let found: HubRules.LineAfter = after >= 1 && after <= household.lines.count ? .hash(household.hashes[after - 1]) : .missing
        let end = min(household.lines.count, after + (limit ?? household.lines.count))
        let lines = after < end ? (after..<end).map { HubLines.Line(seq: $0 + 1, bytes: household.lines[$0], hash: household.hashes[$0]) } : []
        return HubLines(after: found, lines: lines)
    }

    mutating func append(_ append: HubAppend) -> HubAppend.Outcome {
        guard var household = households[append.household] else { return .unknown }
        let revoked = Set(append.tokens.filter { !live($0, of: append.household) })
        if !revoked.isEmpty { return .revoked(revoked) }
        if append.checked.contains(where: { household.records[$0] != nil }) { return .recorded }
        guard household.head == append.expected else { return .headMoved(household.head) }
        household.lines += append.decided.lines.map(\.bytes)
        household.hashes += append.decided.lines.map(\.hash)
        for (command, record) in append.decided.records { household.records[command] = record }
        households[append.household] = household
        return .written
    }
}

/// ``MemoryHubStorage``'s households as a line store, for ``HubCore``: one process holds it, so its
/// lock is the state's own (each read and append is one step under it).
///
/// ```swift
/// func lines(of household: HouseholdID, in storage: MemoryHubStorage) async throws -> Int {
///     try await storage.core.store.lines(of: household, after: 0, limit: nil, token: nil).lines.count
/// }
/// ```
public struct MemoryLineStore: HubLineStore {
    final class Shared: Sendable {
        let state = Mutex(MemoryHubState())
    }

    let shared: Shared

    public func head(of household: HouseholdID, token: String?) async throws -> JournalHead {
        try shared.state.withLock { state in
            guard let found = state.households[household] else { throw HubError.unknownHousehold(household.description) }
            guard state.live(token, of: household) else { throw HubError.unknownToken }
            return found.head
        }
    }

    public func lines(of household: HouseholdID, after: Int, limit: Int?, token: String?) async throws -> HubLines {
        try shared.state.withLock { state in
            guard state.households[household] != nil else { throw HubError.unknownHousehold(household.description) }
            guard state.live(token, of: household) else { throw HubError.unknownToken }
            return state.lines(of: household, after: after, limit: limit)
        }
    }

    public func records(of household: HouseholdID, commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord] {
        shared.state.withLock { state in
            let records = state.households[household]?.records ?? [:]
            return Dictionary(commands.compactMap { id in records[id].map { (id, $0) } }, uniquingKeysWith: { first, _ in first })
        }
    }

    public func append(_ appends: [HubAppend]) async throws -> [HouseholdID: HubAppend.Outcome] {
        shared.state.withLock { state in
            Dictionary(appends.map { ($0.household, state.append($0)) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public func withLock<T: Sendable>(_ household: HouseholdID, _ body: @Sendable (any HubLockedHousehold) async throws -> T) async throws -> T {
        guard shared.state.withLock({ $0.households[household] != nil }) else { throw HubError.unknownHousehold(household.description) }
        return try await body(Locked(store: self, household: household))
    }

    /// One household under the lock: the store's own reads and append, for that household.
    struct Locked: HubLockedHousehold {
        let store: MemoryLineStore
        let household: HouseholdID

        func lines(after: Int) async throws -> HubLines { try await store.lines(of: household, after: after, limit: nil, token: nil) }

        func records(commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord] {
            try await store.records(of: household, commands: commands)
        }

        func liveTokens(_ tokens: [String]) async throws -> Set<String> {
            store.shared.state.withLock { state in Set(tokens.filter { state.live($0, of: household) }) }
        }

        func append(_ append: HubAppend) async throws -> HubAppend.Outcome { try await store.append([append])[append.household] ?? .unknown }
    }
}
