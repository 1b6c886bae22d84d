import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

/// Each household's views, folded from its journal a pull at a time and
/// kept: the members and roles that owners-only routes check, the report,
/// and every view of `GET …/views/{NAME}` (with the suggestions' index once
/// asked). Only what is new since the last fold is read.
actor HouseholdFolds {
    /// A household's views as of `head`, and its suggestions' index once a view asked for it (kept up to date from then on).
    private struct Fold {
        var views = HouseholdViews()
        var head = JournalHead.empty
        var index: SuggestionIndex?
    }

    private var folds: [HouseholdID: Fold] = [:]
    private let storage: any HubStorage

    init(storage: any HubStorage) { self.storage = storage }

    /// The household's views as of its journal's head now.
    func views(_ household: HouseholdID) async throws -> (HouseholdViews, JournalHead) {
        let fold = try await fold(household, suggestions: false)
        return (fold.views, fold.head)
    }

    /// ``views(_:)`` and the index of the suggestions view (built the first time, then kept and brought up to date line by line).
    func viewsAndSuggestions(_ household: HouseholdID) async throws -> (HouseholdViews, JournalHead, SuggestionIndex) {
        let fold = try await fold(household, suggestions: true)
        return (fold.views, fold.head, fold.index ?? SuggestionIndex(fold.views))
    }

    private func fold(_ household: HouseholdID, suggestions: Bool) async throws -> Fold {
        var fold = folds[household] ?? Fold()
        while true {
            let answer = try await storage.sync(household, .pull(after: fold.head.seq, hash: fold.head.hash), as: "shop-hub")
            guard case let .lines(lines, more) = answer else {
                // The journal no longer extends what was folded (restored from a copy): fold it anew.
                if fold.head.seq > 0 { fold = Fold(); continue }
                throw HubError.unavailable("the household's journal cannot be read")
            }
            for line in lines {
                guard case let .event(recorded) = try EventLineCodec.decodeLine(line) else { continue }
                fold.views.apply(recorded)
                fold.index?.update(after: recorded, in: fold.views)
                fold.head = JournalHead(seq: recorded.seq, hash: SHA256.hash(line))
            }
            if !more { break }
        }
        if suggestions, fold.index == nil { fold.index = SuggestionIndex(fold.views) }
        folds[household] = fold
        return fold
    }

    /// The actor's role; every enrolled actor is an owner of an open household (one with no members yet),
    /// as the rules have it.
    func isOwner(_ actor: String, of household: HouseholdID) async throws -> Bool {
        let (views, _) = try await views(household)
        let members = views.state.members
        return members.isEmpty || members.contains { $0.name == actor && $0.role == .owner }
    }
}
