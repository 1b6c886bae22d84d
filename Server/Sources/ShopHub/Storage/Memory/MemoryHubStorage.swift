import Foundation
import ShopEvents
import Synchronization

/// A hub's storage in memory, for tests and trials (as Hummingbird's examples keep a memory
/// repository beside PostgreSQL): nothing is kept past the process. It is a third storage as
/// every storage could be: the hub's records, and each household's lines and command records in
/// a line store (``MemoryLineStore``); hello, pull and push, export and import are ``HubStorage``'s
/// own, over ``HubCore``. A sync request's token is checked live in the same step that answers it,
/// so a revoked device is refused at once.
///
/// ```swift
/// let storage = MemoryHubStorage(clock: .system, ids: .random)
/// let household = HouseholdID()
/// let phone = DeviceRecord(household: household, name: "ana-phone", actor: "ana",
///                          tokenHash: TokenHash(of: Secrets.token()), created: Clock.system.now())
/// try await storage.createHousehold(household, firstDevice: phone, from: nil)
/// print(try await storage.sync(household, .hello(protocol: 1, device: "ana-phone", actor: "ana"), as: "ana"))   // a hello, head 0
/// ```
public final class MemoryHubStorage: HubStorage, Sendable {
    private let shared = MemoryLineStore.Shared()
    public let core: HubCore<MemoryLineStore>

    public init(clock: Clock = .system, ids: IDGenerator = .random) {
        core = HubCore(store: MemoryLineStore(shared: shared), clock: clock, ids: ids)
    }

    private func withState<T>(_ body: (inout MemoryHubState) throws -> T) rethrows -> T {
        try shared.state.withLock { try body(&$0) }
    }

    // MARK: Households

    public func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        try withState { state in
            guard state.households[household] == nil else { throw HubError.conflict("household_exists", "household \(household) exists already") }
            try Self.enrol(firstDevice, in: &state)
            state.households[household] = MemoryHubState.Household(created: firstDevice.created, address: address)
            state.order.append(household)
        }
    }

    public func householdExists(_ household: HouseholdID) async throws -> Bool { withState { $0.households[household] != nil } }

    public func households() async throws -> [HouseholdID] { withState { $0.order } }

    public func householdsCreated(from address: String, since: Timestamp) async throws -> Int {
        withState { $0.households.values.filter { $0.address == address && $0.created >= since }.count }
    }

    public func recordImported(_ household: HouseholdID, created: Timestamp) async throws {
        withState { state in
            guard state.households[household] == nil else { return }
            state.households[household] = MemoryHubState.Household(created: created)
            state.order.append(household)
        }
    }

    // MARK: Devices and invites

    public func device(tokenHash: TokenHash) async throws -> DeviceRecord? { withState { $0.devices[tokenHash] } }

    public func devices(of household: HouseholdID) async throws -> [DeviceRecord] {
        withState { state in state.deviceOrder.compactMap { state.devices[$0] }.filter { $0.household == household && $0.revoked == nil } }
    }

    public func addDevice(_ device: DeviceRecord) async throws { try withState { try Self.enrol(device, in: &$0) } }

    private static func enrol(_ device: DeviceRecord, in state: inout MemoryHubState) throws {
        if state.devices.values.contains(where: { $0.household == device.household && $0.name == device.name && $0.revoked == nil }) {
            throw HubError.conflict("device_exists", "the household has a device named \(device.name) already: choose another name, or revoke that one")
        }
        if state.devices[device.tokenHash] == nil { state.deviceOrder.append(device.tokenHash) }
        state.devices[device.tokenHash] = device
    }

    public func revokeDevice(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool {
        withState { state in
            guard let device = state.devices.values.first(where: { $0.household == household && $0.name == name && $0.revoked == nil }) else {
                return false
            }
            state.devices[device.tokenHash]?.revoked = at
            return true
        }
    }

    public func removeMember(_ actor: String, of household: HouseholdID, at: Timestamp) async throws -> Int {
        withState { state in
            let revoked = state.devices.values.filter { $0.household == household && $0.actor == actor && $0.revoked == nil }
            for device in revoked {
                state.devices[device.tokenHash]?.revoked = at
                state.devices[device.tokenHash]?.memberRemoved = true
            }
            for invite in state.invites.values where invite.household == household && invite.actor == actor {
                state.usedInvites.insert(invite.codeHash)
            }
            return revoked.count
        }
    }

    public func seen(_ device: DeviceRecord, at: Timestamp) async { withState { $0.devices[device.tokenHash]?.lastSeen = at } }

    public func addInvite(_ invite: InviteRecord) async throws { withState { $0.invites[invite.codeHash] = invite } }

    public func invites(of household: HouseholdID, at now: Timestamp) async throws -> [InviteRecord] {
        withState { state in
            state.invites.values.filter { $0.household == household && !state.usedInvites.contains($0.codeHash) && $0.expires > now }
                .sorted { ($0.expires, $0.id) < ($1.expires, $1.id) }
        }
    }

    public func cancelInvite(_ id: String, of household: HouseholdID, at now: Timestamp) async throws -> Bool {
        withState { state in
            guard let invite = state.invites.values.first(where: {
                $0.household == household && $0.id == id && !state.usedInvites.contains($0.codeHash) && $0.expires > now
            }) else { return false }
            state.usedInvites.insert(invite.codeHash)
            return true
        }
    }

    public func redeemInvite(codeHash: TokenHash, at now: Timestamp,
                             enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)? {
        try withState { state in
            guard let invite = state.invites[codeHash], !state.usedInvites.contains(codeHash), invite.expires > now else { return nil }
            state.usedInvites.insert(codeHash)
            let enrolled = device(invite)
            try Self.enrol(enrolled, in: &state)
            return (invite, enrolled)
        }
    }

    public func checkReady() async throws {}
}
