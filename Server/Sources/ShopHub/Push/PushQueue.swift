import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

/// Group commit of the pushes of one process: a push arriving while batches are at the database
/// waits, and the pushes that waited — whatever their households — go to the database together as a
/// batch (one statement, one commit), each answered with its own results. At most ``concurrentBatches``
/// batches are at the database at once, and a household is in at most one of them (its pushes are
/// decided on the state the one before left). Across processes the households' row locks order them.
///
/// A push that finds a free slot leads: it takes every waiting push whose household is not at the
/// database, runs the batch, answers the batch's other pushes, and hands the lead on to the oldest
/// push that can go next (or frees the slot).
final class PushQueue: Sendable {
    typealias Push = HubPush

    /// At most this many pushes a batch.
    static let batchLimit = 256
    /// Batches at the database at once: enough to keep the connections and the database's cores busy
    /// while one batch's round trip is under way.
    static let concurrentBatches = 4

    /// How long a push waits for its answer, from when it joined the queue: a batch is answered
    /// `unavailable` at its oldest push's deadline, and its slot and households are let go (a write
    /// the database never answers must not hold the queue, nor a push queued behind it wait for that
    /// write's deadline and then its own). The write is left to end on its own; if it commits after
    /// all, its pushes were not acknowledged, and a device's retry is answered from the commands' records.
    let timeout: Duration
    /// Where a batch's deadline is kept: one task watches them all (``Deadlines/watch()``, run by the
    /// queue's owner), rather than a timer task a batch.
    let deadlines: Deadlines

    init(timeout: Duration = .seconds(10), deadlines: Deadlines) {
        self.timeout = timeout
        self.deadlines = deadlines
    }

    private enum Turn { case lead([Waiting]), answered(Result<SyncResponse, any Error>) }
    private struct Waiting {
        var id: Int
        var push: Push
        var turn: CheckedContinuation<Turn, Never>
        var joined: ContinuousClock.Instant
    }
    private struct State {
        var leaders = 0
        var waiting: [Waiting] = []
        /// The households of the batches at the database.
        var busy: Set<HouseholdID> = []
        var nextID = 0

        /// Every waiting push whose household is not at the database (at most ``batchLimit``), taken
        /// out of the queue, their households marked busy: the next batch.
        mutating func takeBatch() -> [Waiting] { topUp([]) }

        /// More for a batch about to go: waiting pushes whose household is free or one of the batch's
        /// own (at most ``batchLimit`` in all), taken out of the queue, their households marked busy.
        mutating func topUp(_ batch: [Waiting]) -> [Waiting] {
            let mine = Set(batch.map(\.push.household))
            var taken: [Waiting] = [], left: [Waiting] = []
            var households = Set<HouseholdID>()
            for waiting in waiting {
                let household = waiting.push.household
                if batch.count + taken.count < PushQueue.batchLimit, mine.contains(household) || !busy.contains(household) {
                    taken.append(waiting)
                    households.insert(household)
                } else {
                    left.append(waiting)
                }
            }
            waiting = left
            busy.formUnion(households)
            return taken
        }
    }
    private let state = Mutex(State())

    /// `push`, answered by the batch it goes with: `write` takes a batch and gives each push's answer, in order.
    func push(_ push: Push, write: @escaping @Sendable ([Push]) async -> [Result<SyncResponse, any Error>]) async throws -> SyncResponse {
        let myID = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let joined = ContinuousClock.now
        let turn = await withCheckedContinuation { (turn: CheckedContinuation<Turn, Never>) in
            let batch = state.withLock { state -> [Waiting]? in
                state.waiting.append(Waiting(id: myID, push: push, turn: turn, joined: joined))
                guard state.leaders < Self.concurrentBatches, !state.busy.contains(push.household) else { return nil }
                state.leaders += 1
                return state.takeBatch()
            }
            if let batch { turn.resume(returning: .lead(batch)) }
        }
        var taken: [Waiting]
        switch turn {
        case let .answered(result): return try result.get()
        case let .lead(first): taken = first
        }
        // Devices answered together (a batch before this one) push again together: one turn of the
        // executor lets the pushes already on their way join, rather than go in a batch of one and make
        // the rest wait a whole round trip behind it.
        await Task.yield()
        taken += state.withLock { [taken] in $0.topUp(taken) }
        let batch = taken
        // reason: a batch is led by the push that took it, so it holds one at least.
        let deadline = batch.map(\.joined).min()! + timeout
        let answers = await within(deadline, count: batch.count) { await write(batch.map(\.push)) }
        // The next batch, if a waiting push can go now, led by its oldest; else the slot is freed.
        let next = state.withLock { state -> [Waiting]? in
            for waiting in batch { state.busy.remove(waiting.push.household) }
            let taken = state.takeBatch()
            if taken.isEmpty { state.leaders -= 1 }
            return taken.isEmpty ? nil : taken
        }
        if let next { next[0].turn.resume(returning: .lead(next)) }
        var mine: Result<SyncResponse, any Error> = .failure(HubError.unavailable("the push was not answered"))
        for (index, waiting) in batch.enumerated() {
            let answer: Result<SyncResponse, any Error> = index < answers.count ? answers[index] : .failure(HubError.unavailable("the push was not answered"))
            if waiting.id == myID { mine = answer } else { waiting.turn.resume(returning: .answered(answer)) }
        }
        return try mine.get()
    }

    /// `write`'s answers, or, once `deadline` has passed, `unavailable` for each of the batch's `count`
    /// pushes (`write` is left to end on its own).
    private func within(_ deadline: ContinuousClock.Instant, count: Int,
                        _ write: @escaping @Sendable () async -> [Result<SyncResponse, any Error>]) async -> [Result<SyncResponse, any Error>] {
        let first = Once()
        let timeout = timeout, deadlines = deadlines
        return await withCheckedContinuation { (answered: CheckedContinuation<[Result<SyncResponse, any Error>], Never>) in
            let entry = deadlines.add(at: deadline) {
                guard first.claim() else { return }
                answered.resume(returning: Array(repeating: .failure(HubError.unavailable("the database did not answer within \(timeout)")), count: count))
            }
            Task {
                let answers = await write()
                deadlines.remove(entry)
                guard first.claim() else { return }
                answered.resume(returning: answers)
            }
        }
    }
}
