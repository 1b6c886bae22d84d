import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

/// Each household's views, folded from its journal a pull at a time and
/// kept: the members and roles that owners-only routes check, and the
/// report. Only what is new since the last fold is read.
actor HouseholdFolds {
    private var folds: [HouseholdID: (views: HouseholdViews, head: JournalHead)] = [:]
    private let storage: any HubStorage

    init(storage: any HubStorage) { self.storage = storage }

    /// The household's views as of its journal's head now.
    func views(_ household: HouseholdID) async throws -> (HouseholdViews, JournalHead) {
        var (views, head) = folds[household] ?? (HouseholdViews(), .empty)
        while true {
            let answer = try await storage.sync(household, .pull(after: head.seq, hash: head.hash), as: "shop-hub")
            guard case let .lines(lines, more) = answer else {
                // The journal no longer extends what was folded (restored from a copy): fold it anew.
                if head.seq > 0 { (views, head) = (HouseholdViews(), .empty); continue }
                throw HubError.unavailable("the household's journal cannot be read")
            }
            for line in lines {
                guard case let .event(recorded) = try EventLineCodec.decodeLine(line) else { continue }
                views.apply(recorded)
                head = JournalHead(seq: recorded.seq, hash: SHA256.hash(line))
            }
            if !more { break }
        }
        folds[household] = (views, head)
        return (views, head)
    }

    /// The actor's role; every enrolled actor is an owner of an open household (one with no members yet),
    /// as the rules have it.
    func isOwner(_ actor: String, of household: HouseholdID) async throws -> Bool {
        let (views, _) = try await views(household)
        let members = views.state.members
        return members.isEmpty || members.contains { $0.name == actor && $0.role == .owner }
    }
}
