import Foundation
import ShopEvents

/// Where a hosted hub keeps its households: the hub's records (``HubRecords``: devices and their
/// hashed tokens, invites, rates) and each household's lines in a line store (``HubLineStore``),
/// under the one driver that answers hello, pull and push by the hub's rules (``HubCore``).
///
/// Everything about a household's journal is provided once, here, over the driver: a request of
/// docs/SYNC.md (``sync(_:_:as:token:)``), the journal exported byte for byte
/// (``journal(_:)``) and imported (``importJournal(_:journal:created:)``). A storage gives its
/// records and its driver, and may answer these its own way where it has a faster or a more
/// careful one (PostgreSQL's deadlines and group commit, a file copied in place); a third storage
/// is a line store and records, nothing else. Every method may throw
/// ``HubError/unavailable(_:)`` when the storage cannot be reached; nothing is half-written by a failure.
///
/// ```swift
/// func head(of household: HouseholdID, in storage: some HubStorage) async throws -> Int {
///     guard case let .hello(_, _, head) = try await storage.sync(household, .hello(protocol: 1, device: "d", actor: "a"), as: "a") else { return 0 }
///     return head.seq
/// }
/// ```
public protocol HubStorage: HubRecords {
    associatedtype Lines: HubLineStore

    /// The hub's rules over the households' lines.
    var core: HubCore<Lines> { get }

    /// One request of docs/SYNC.md (`hello`, `pull` or `push`) answered against the household's
    /// journal; `actor` is the token's: a pushed command naming another actor is `forbidden`, one
    /// naming none gets it. Answered only while `token` is live (`unauthorized` once it is revoked)
    /// where the store checks it (nil: checked by the caller). A storage whose routes check every
    /// request's token from its records may leave `token` unchecked: the routes check it again when
    /// a long poll that waited is answered.
    func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash?) async throws -> SyncResponse
    /// The whole journal, byte for byte (empty before the first push).
    func journal(_ household: HouseholdID) async throws -> [UInt8]
    /// Moves a verified journal in, byte for byte (`shop-hub household import`): the household made if
    /// it is not there, refused (`household_exists`) if it has events already.
    func importJournal(_ household: HouseholdID, journal bytes: [UInt8], created: Timestamp) async throws
    /// Where the household's journal is a file other tools read (`shop-replay verify`); nil where it is not a file.
    func journalFile(_ household: HouseholdID) -> String?
}

extension HubStorage {
    /// ``sync(_:_:as:token:)`` for a caller that checked the token (or has none: the operator's commands).
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String) async throws -> SyncResponse {
        try await sync(household, request, as: actor, token: nil as TokenHash?)
    }

    /// The driver's answer; the store checks `token` where it answers.
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash?) async throws -> SyncResponse {
        try await core.sync(household, request, as: actor, token: token?.hex)
    }

    /// Every line the line store holds, each with its newline.
    public func journal(_ household: HouseholdID) async throws -> [UInt8] {
        try await core.export(household)
    }

    /// The household recorded, then every line appended if its head is still the empty one (each line's
    /// chain checked as it is read).
    public func importJournal(_ household: HouseholdID, journal bytes: [UInt8], created: Timestamp) async throws {
        try await core.importJournal(household, journal: bytes) { try await self.recordImported(household, created: created) }
    }

    /// None: the lines are not a file.
    public func journalFile(_ household: HouseholdID) -> String? { nil }
}
