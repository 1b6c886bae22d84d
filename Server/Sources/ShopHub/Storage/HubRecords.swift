import Foundation
import ShopEvents

/// The hub's own records, kept beside its households' lines: households, devices and their hashed
/// tokens, invites, and the tokens' rates — what each storage keeps in its own way, and nothing of
/// the sync rules. A storage (``HubStorage``) is these records and a line store (``HubLineStore``)
/// under the one driver (``HubCore``).
///
/// ```swift
/// func names(in household: HouseholdID, _ records: some HubRecords) async throws -> [String] {
///     try await records.devices(of: household).map(\.name)
/// }
/// ```
public protocol HubRecords: Sendable {
    // MARK: Households

    /// Records a new, empty household with its first device; the journal comes with the first push.
    func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws
    func householdExists(_ household: HouseholdID) async throws -> Bool
    /// Every household, oldest first.
    func households() async throws -> [HouseholdID]
    /// How many households `address` created since `since` (the rate limit of creation).
    func householdsCreated(from address: String, since: Timestamp) async throws -> Int
    /// Records household `household` (created at `created`) unless it is there: a journal imported
    /// into it (`shop-hub household import`) comes through the line store.
    func recordImported(_ household: HouseholdID, created: Timestamp) async throws

    // MARK: Devices and invites

    /// The device whose token has this hash, revoked or not.
    func device(tokenHash: TokenHash) async throws -> DeviceRecord?
    /// Every device of the household that is not revoked, oldest first.
    func devices(of household: HouseholdID) async throws -> [DeviceRecord]
    /// Enrols a device; `device_exists` if the household has a live device of that name.
    func addDevice(_ device: DeviceRecord) async throws
    /// Revokes a device's token at once; false if the household has no such live device.
    func revokeDevice(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool
    /// The member `actor` was removed from the household: every live device of that actor is revoked at
    /// once (``DeviceRecord/memberRemoved``) and every outstanding invite for it cancelled, in one step,
    /// so that adding the member again takes a new invite. How many devices it revoked.
    func removeMember(_ actor: String, of household: HouseholdID, at: Timestamp) async throws -> Int
    /// Notes that a device was seen (its `lastSeen`); may be kept lazily. The routes call it only
    /// once a request is answered (2xx): a refused request writes nothing.
    func seen(_ device: DeviceRecord, at: Timestamp) async
    func addInvite(_ invite: InviteRecord) async throws
    /// The household's outstanding invites at `now` (not used, not cancelled, not expired), soonest to expire first.
    func invites(of household: HouseholdID, at now: Timestamp) async throws -> [InviteRecord]
    /// Cancels the household's outstanding invite `id`: its code is refused from then on, as an unknown one.
    /// False if the household has no such outstanding invite.
    func cancelInvite(_ id: String, of household: HouseholdID, at now: Timestamp) async throws -> Bool
    /// The invite with this code's hash, if it exists, is unused and unexpired at `now`;
    /// it is used up by this call, whatever the caller does next, and enrols `device` in one step.
    func redeemInvite(codeHash: TokenHash, at now: Timestamp, enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)?

    /// Throws unless the storage answers (`/readyz`).
    func checkReady() async throws

    /// The households pushed to by other processes over the same store, as
    /// they are (long polls wake on them); nil where one process serves the store.
    func pushes() -> AsyncStream<HouseholdID>?

    /// The live (not revoked) device whose token has this hash, with this request counted against
    /// the token's rate (`rate` a second, in bursts of `burst`) where every process serving the
    /// store sees it; nil for an unknown or revoked token. A storage that one process serves may
    /// leave the rate to that process (``RateDecision/notKept``). A request's one look at the store
    /// before its work: a database answers it in one statement.
    func authenticate(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)?

    /// ``authenticate(tokenHash:rate:burst:at:)`` for a sync request, which the storage may answer
    /// from what it keeps in memory: the token's liveness is then checked again by
    /// ``HubStorage/sync(_:_:as:token:)`` in the statement that answers the request, so a revoked token
    /// still stops at once on every process.
    func authenticateForSync(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)?
}

/// What a storage says of one request against a token's rate.
public enum RateDecision: Hashable, Sendable {
    /// The storage keeps no rate: the process counts it in memory.
    case notKept
    case allowed
    case limited(retryAfter: Int)
}

extension HubRecords {
    public func pushes() -> AsyncStream<HouseholdID>? { nil }
    public func authenticate(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        guard let device = try await device(tokenHash: tokenHash), device.revoked == nil else { return nil }
        return (device, .notKept)
    }
    public func authenticateForSync(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        try await authenticate(tokenHash: tokenHash, rate: rate, burst: burst, at: at)
    }
}
