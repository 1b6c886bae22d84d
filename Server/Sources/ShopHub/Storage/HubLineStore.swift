import Foundation
import ShopEvents

/// What differs between the places a hub keeps its households' journals: a household's head,
/// its lines after a seq (with the hash of line `after`), the records of some command ids, and an
/// append that writes only if the head is still the one decided on — nothing of the hub's rules.
/// ``HubCore`` answers hello, pull and push over any line store with ``HubRules``; a store that
/// serves several processes (PostgreSQL, a shared folder) also gives a household's lock, under which
/// no other process can move its head (``withLock(_:_:)``).
///
/// A `token` (a token's hash, hex) is the request's: a store that checks liveness where it answers
/// throws ``HubError/unknownToken`` once it is revoked; nil where the caller checked it already.
///
/// ```swift
/// func head(of household: HouseholdID, in store: some HubLineStore) async throws -> Int {
///     try await store.head(of: household, token: nil).seq
/// }
/// ```
public protocol HubLineStore: Sendable {
    /// The household's head (``JournalHead/empty`` before its first push); ``HubError/unknownHousehold(_:)`` if there is none.
    func head(of household: HouseholdID, token: String?) async throws -> JournalHead
    /// The hash of line `after` (or why there is none), and up to `limit` lines after it, in order.
    func lines(of household: HouseholdID, after: Int, limit: Int?, token: String?) async throws -> HubLines
    /// Each of `commands` the household holds: where its events are and its type.
    func records(of household: HouseholdID, commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord]
    /// Appends, for each household, its lines and command records only if its head is still the
    /// expected one, none of its checked commands is recorded and its tokens are live; one
    /// outcome a household. A database does it for every household in one statement.
    func append(_ appends: [HubAppend]) async throws -> [HouseholdID: HubAppend.Outcome]
    /// `body` run with the household's lock held: its reads and its append see no other writer.
    func withLock<T: Sendable>(_ household: HouseholdID,
                               _ body: @Sendable (any HubLockedHousehold) async throws -> T) async throws -> T
}

/// One household under its lock (``HubLineStore/withLock(_:_:)``): what the driver reads and writes there.
///
/// ```swift
/// func count(_ locked: any HubLockedHousehold) async throws -> Int {
///     try await locked.lines(after: 0).lines.count
/// }
/// ```
public protocol HubLockedHousehold: Sendable {
    func lines(after: Int) async throws -> HubLines
    func records(commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord]
    /// The tokens (hashes, hex) of `tokens` that are live devices of the household.
    func liveTokens(_ tokens: [String]) async throws -> Set<String>
    func append(_ append: HubAppend) async throws -> HubAppend.Outcome
}

/// A household's lines as a store reads them: the hash of the line a pull names, and the lines after it.
///
/// ```swift
/// let none = HubLines(after: .noJournal, lines: [])
/// print(none.lines.isEmpty)   // true
/// ```
public struct HubLines: Sendable {
    /// One stored line: its seq, its bytes and their hash.
    public struct Line: Sendable {
        public var seq: Int
        public var bytes: [UInt8]
        public var hash: SHA256Digest
        public init(seq: Int, bytes: [UInt8], hash: SHA256Digest) { self.seq = seq; self.bytes = bytes; self.hash = hash }
    }
    public var after: HubRules.LineAfter
    public var lines: [Line]
    /// The lines run to the end of what the store holds: set by a store that reads a pull's page
    /// itself, past `limit` to end a command (the file store), so that lines beyond the limit do not
    /// read as more to come.
    public var toEnd: Bool
    public init(after: HubRules.LineAfter, lines: [Line], toEnd: Bool = false) { self.after = after; self.lines = lines; self.toEnd = toEnd }
}

/// One household's part of an append: what was decided, on which head, and what the store checks.
///
/// ```swift
/// func wrote(_ outcome: HubAppend.Outcome) -> Bool {
///     if case .written = outcome { return true } else { return false }
/// }
/// ```
public struct HubAppend: Sendable {
    public var household: HouseholdID
    /// The head the lines were decided on.
    public var expected: JournalHead
    /// The command ids that must not be recorded yet (those of the pushes not answered from records).
    public var checked: [CommandID]
    /// The pushes' tokens (hashes, hex), checked live where the lines are written.
    public var tokens: [String]
    public var decided: HubRules.Decided

    public init(household: HouseholdID, expected: JournalHead, checked: [CommandID] = [], tokens: [String] = [], decided: HubRules.Decided) {
        self.household = household; self.expected = expected; self.checked = checked; self.tokens = tokens; self.decided = decided
    }

    /// What an append did for one household.
    public enum Outcome: Sendable {
        /// Written (or, with nothing to write, the head was still the one decided on).
        case written
        /// Another writer moved the head: nothing was written.
        case headMoved(JournalHead)
        /// A checked command is recorded already: nothing was written.
        case recorded
        /// These tokens (hashes, hex) were revoked: nothing was written.
        case revoked(Set<String>)
        /// No such household.
        case unknown
    }
}
