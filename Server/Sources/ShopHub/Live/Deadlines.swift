import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

/// The deadlines of the requests at the database and of the push queue's batches: an entry each,
/// and one task (``watch()``) that fires those past due, every 100 ms.
final class Deadlines: Sendable {
    private let state = Mutex<(next: Int, entries: [Int: (at: ContinuousClock.Instant, fire: @Sendable () -> Void)])>((0, [:]))

    func add(at: ContinuousClock.Instant, fire: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.next += 1
            state.entries[state.next] = (at, fire)
            return state.next
        }
    }

    func remove(_ entry: Int) { _ = state.withLock { $0.entries.removeValue(forKey: entry) } }

    /// Until cancelled: fires each entry once it is due, and forgets it.
    func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            let now = ContinuousClock.now
            let due = state.withLock { state -> [@Sendable () -> Void] in
                let past = state.entries.filter { $0.value.at <= now }
                for key in past.keys { state.entries[key] = nil }
                return past.values.map(\.fire)
            }
            for fire in due { fire() }
        }
    }
}
