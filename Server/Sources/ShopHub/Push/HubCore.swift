import Foundation
import Metrics
import ShopEvents
import Synchronization

/// The one driver above every line store: it answers hello, pull and push through ``HubRules``
/// over a ``HubLineStore``, keeping each household's state at the head it last saw (the fold
/// cache), deciding a batch of pushes — of any households — optimistically on it, appending
/// only where the head is still that one, catching up and deciding again where another writer
/// moved it, and deciding under the household's lock once it lost (it cannot lose again).
///
/// ```swift
/// func hello(_ household: HouseholdID, over store: some HubLineStore) async throws -> SyncResponse {
///     try await HubCore(store: store).sync(household, .hello(protocol: 1, device: "d", actor: "a"), as: "a", token: nil)
/// }
/// ```
public final class HubCore<Store: HubLineStore>: Sendable {
    public let store: Store
    let clock: Clock
    /// Where the recorded events' ids come from.
    let ids: IDGenerator
    /// At most this many lines in one pull's answer (a command is never split).
    let linesPerPull: Int
    /// Told the tokens (hashes, hex) an append found revoked: a store that keeps live devices in memory forgets them.
    let revoked: @Sendable (Set<String>) -> Void
    /// Each household's state at the head this driver last saw.
    let heads = Mutex<[HouseholdID: Folded]>([:])

    struct Folded: Sendable {
        var fold = HubRules.Fold()
        /// Another writer moved the head under this one lately: the next batch is decided on a copy.
        var contended = false
        var head: JournalHead { fold.head }
    }

    public init(store: Store, clock: Clock = .system, ids: IDGenerator = .random, linesPerPull: Int = 10_000,
                revoked: @escaping @Sendable (Set<String>) -> Void = { _ in }) {
        self.store = store; self.clock = clock; self.ids = ids; self.linesPerPull = linesPerPull; self.revoked = revoked
    }

    /// One request of docs/SYNC.md; a push is a batch of one (``write(_:)`` takes several).
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: String?) async throws -> SyncResponse {
        switch request {
        case let .hello(version, _, _):
            if let refusal = HubRules.helloRefusal(protocol: version) { return refusal }
            return HubRules.hello(household: household, head: try await store.head(of: household, token: token))
        case let .pull(after, hash):
            if after == 0, let refusal = HubRules.diverged(after: 0, hash: hash, hub: .missing) { return refusal }
            let found = try await store.lines(of: household, after: after, limit: linesPerPull + 1, token: token)
            if let refusal = HubRules.diverged(after: after, hash: hash, hub: found.after) { return refusal }
            var page = HubRules.Page(limit: linesPerPull)
            for line in found.lines where !page.add(line.bytes) { break }
            return .lines(page.wholeLines, more: page.full || (found.lines.count > linesPerPull && !found.toEnd))
        case let .push(commands):
            if let refusal = HubRules.refusal(ofPush: commands) { throw HubError.badRequest(refusal.message) }
            return try await write([HubPush(household: household, commands: commands, actor: actor, token: token)])[0].get()
        }
    }
}
