import Foundation
import ShopEvents

/// Where a hosted hub keeps its households: each one's canonical journal,
/// and the hub's own records (devices and their hashed tokens, invites).
///
/// The journal half is what the core's ``SyncHub`` already does for one
/// file — the head, a range of lines after a known one, a batch of commands
/// decided against the head and made durable at once, a command id answered
/// from its record — so that the file backend is the core's journal and a
/// database backend does the same in one transaction. Every method may throw
/// ``HubError/unavailable(_:)`` when the storage cannot be reached; nothing
/// is half-written by a failure.
///
/// ```swift
/// func head(of household: HouseholdID, in storage: some HubStorage) async throws -> Int {
///     guard case let .hello(_, _, head) = try await storage.sync(household, .hello(protocol: 1, device: "d", actor: "a"), as: "a") else { return 0 }
///     return head.seq
/// }
/// ```
public protocol HubStorage: Sendable {
    // MARK: Households

    /// Records a new, empty household with its first device; the journal comes with the first push.
    func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws
    func householdExists(_ household: HouseholdID) async throws -> Bool
    /// Every household, oldest first.
    func households() async throws -> [HouseholdID]
    /// How many households `address` created since `since` (the rate limit of creation).
    func householdsCreated(from address: String, since: Timestamp) async throws -> Int

    // MARK: The journal

    /// One request of SPEC section 7 (`hello`, `pull` or `push`) answered
    /// against the household's journal; `actor` is the token's: a pushed
    /// command naming another actor is `forbidden`, one naming none gets it.
    func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String) async throws -> SyncResponse
    /// The whole journal, byte for byte (empty before the first push).
    func journal(_ household: HouseholdID) async throws -> [UInt8]
    /// Moves a verified journal in, byte for byte (`shop-hub household import`): the household made if
    /// it is not there, refused (`household_exists`) if it has events already.
    func importJournal(_ household: HouseholdID, journal bytes: [UInt8], created: Timestamp) async throws
    /// Where the household's journal is a file other tools read (`shop-replay verify`); nil where it is not a file.
    func journalFile(_ household: HouseholdID) -> String?

    // MARK: Devices and invites

    /// The device whose token has this hash, revoked or not.
    func device(tokenHash: TokenHash) async throws -> DeviceRecord?
    /// Every device of the household that is not revoked, oldest first.
    func devices(of household: HouseholdID) async throws -> [DeviceRecord]
    /// Enrols a device; `device_exists` if the household has a live device of that name.
    func addDevice(_ device: DeviceRecord) async throws
    /// Revokes a device's token at once; false if the household has no such live device.
    func revokeDevice(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool
    /// Notes that a device was seen (its `lastSeen`); may be kept lazily. The routes call it only
    /// once a request is answered (2xx): a refused request writes nothing.
    func seen(_ device: DeviceRecord, at: Timestamp) async
    func addInvite(_ invite: InviteRecord) async throws
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
    /// ``sync(_:_:as:token:)`` in the statement that answers the request, so a revoked token
    /// still stops at once on every process.
    func authenticateForSync(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)?

    /// ``sync(_:_:as:)``, answered only while `token` is live (`unauthorized` once it is revoked):
    /// the other half of ``authenticateForSync(tokenHash:rate:burst:at:)``. A storage that
    /// authenticates every request from its records may leave `token` unchecked (the default): the
    /// routes check the token again themselves when a long poll that waited is answered.
    func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash) async throws -> SyncResponse
}

/// What a storage says of one request against a token's rate.
public enum RateDecision: Hashable, Sendable {
    /// The storage keeps no rate: the process counts it in memory.
    case notKept
    case allowed
    case limited(retryAfter: Int)
}

extension HubStorage {
    public func pushes() -> AsyncStream<HouseholdID>? { nil }
    public func authenticate(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        guard let device = try await device(tokenHash: tokenHash), device.revoked == nil else { return nil }
        return (device, .notKept)
    }
    public func authenticateForSync(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        try await authenticate(tokenHash: tokenHash, rate: rate, burst: burst, at: at)
    }
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash) async throws -> SyncResponse {
        try await sync(household, request, as: actor)
    }
}

/// A device enrolled in a household.
///
/// ```swift
/// let token = Secrets.token()
/// let phone = DeviceRecord(household: HouseholdID(), name: "ana-phone", actor: "ana",
///                          tokenHash: TokenHash(of: token), created: Clock.system.now())
/// print(phone.revoked == nil)   // true: its token works
/// ```
public struct DeviceRecord: Hashable, Sendable {
    public var household: HouseholdID
    public var name: String
    /// Who its commands are by.
    public var actor: String
    public var tokenHash: TokenHash
    public var created: Timestamp
    public var lastSeen: Timestamp?
    public var revoked: Timestamp?

    public init(household: HouseholdID, name: String, actor: String, tokenHash: TokenHash, created: Timestamp,
                lastSeen: Timestamp? = nil, revoked: Timestamp? = nil) {
        self.household = household; self.name = name; self.actor = actor; self.tokenHash = tokenHash
        self.created = created; self.lastSeen = lastSeen; self.revoked = revoked
    }
}

/// A join code an owner made: it works once, until it expires.
///
/// ```swift
/// let code = Secrets.joinCode()
/// let invite = InviteRecord(household: HouseholdID(), codeHash: TokenHash(of: code), actor: "ben",
///                           expires: Timestamp(millisecondsSince1970: 1_800_000_000_000), by: "ana-phone")
/// print(invite.actor)   // ben
/// ```
public struct InviteRecord: Hashable, Sendable {
    public var household: HouseholdID
    public var codeHash: TokenHash
    /// The actor the joining device will be.
    public var actor: String
    public var expires: Timestamp
    /// The device that made it.
    public var by: String

    public init(household: HouseholdID, codeHash: TokenHash, actor: String, expires: Timestamp, by: String) {
        self.household = household; self.codeHash = codeHash; self.actor = actor; self.expires = expires; self.by = by
    }
}
