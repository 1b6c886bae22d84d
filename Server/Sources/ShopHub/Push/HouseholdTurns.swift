import Foundation
import ShopEvents
import Synchronization

/// Each household's turn: one body at a time a household, in the order they asked, without holding
/// a thread while waiting. The file store's lock within its process (``FileLineStore``), and the file
/// hub's pushes one after the other a household, as its queue had them.
final class HouseholdTurns: Sendable {
    private struct State {
        var busy: Set<HouseholdID> = []
        var waiting: [HouseholdID: [CheckedContinuation<Void, Never>]] = [:]
    }
    private let state = Mutex(State())

    /// `body`, run once every body that asked for the household's turn before it has returned.
    func run<T: Sendable>(_ household: HouseholdID, _ body: () async throws -> T) async throws -> T {
        await take(household)
        defer { pass(household) }
        return try await body()
    }

    private func take(_ household: HouseholdID) async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.busy.insert(household).inserted { return true }
                state.waiting[household, default: []].append(turn)
                return false
            }
            if now { turn.resume() }
        }
    }

    /// The turn handed to the oldest body waiting, or let go.
    private func pass(_ household: HouseholdID) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard var waiting = state.waiting[household], !waiting.isEmpty else {
                state.busy.remove(household)
                return nil
            }
            let next = waiting.removeFirst()
            state.waiting[household] = waiting.isEmpty ? nil : waiting
            return next
        }
        next?.resume()
    }
}
