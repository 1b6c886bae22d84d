import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

/// Wakes the long polls of a household when a push lands in it.
///
/// A poll reads the household's generation before it pulls; if the pull
/// finds nothing it waits for a later generation, so that a push landing
/// between the two is never missed.
final class HeadWatch: Sendable {
    private struct State {
        var generations: [HouseholdID: Int] = [:]
        var waiters: [HouseholdID: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextWaiter = 0
        var stopped = false
    }
    private let state = Mutex(State())

    func generation(_ household: HouseholdID) -> Int { state.withLock { $0.generations[household, default: 0] } }

    /// The server is stopping: no poll waits any more.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// A push landed: every poll of the household answers.
    func bump(_ household: HouseholdID) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generations[household, default: 0] += 1
            return Array((state.waiters.removeValue(forKey: household) ?? [:]).values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// The server is stopping: every poll answers now, and none waits from now on.
    func stop() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.stopped = true
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap(\.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns when the household's generation passes `seen`, after `seconds`, or when the server stops.
    func wait(_ household: HouseholdID, after seen: Int, seconds: Double) async {
        let id: Int? = state.withLock { state in
            guard !state.stopped, state.generations[household, default: 0] == seen else { return nil }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id else { return }
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            self.resume(household, id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard !state.stopped, state.generations[household, default: 0] == seen, !Task.isCancelled else { return true }
                    state.waiters[household, default: [:]][id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.resume(household, id)
        }
        timer.cancel()
    }

    private func resume(_ household: HouseholdID, _ id: Int) {
        let waiter = state.withLock { $0.waiters[household]?.removeValue(forKey: id) }
        waiter?.resume()
    }
}
