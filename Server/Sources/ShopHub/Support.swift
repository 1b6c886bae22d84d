import Foundation
import ShopEvents
import ShopProjections
import Synchronization

/// Token buckets: at most `rate` requests a second per key, in bursts of at
/// most `burst`. Kept in memory: a restart forgives.
final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var at: Double }
    private let buckets = Mutex<[String: Bucket]>([:])
    let rate: Double
    let burst: Double

    init(perSecond rate: Double, burst: Double) { self.rate = rate; self.burst = burst }

    /// Takes one request from `key`'s bucket; returns the seconds to wait when it is empty.
    func take(_ key: String, now: Double) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, at: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.at) * rate)
            bucket.at = now
            defer {
                buckets[key] = bucket
                if buckets.count > 100_000 { buckets = buckets.filter { now - $0.value.at < 60 } }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}

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

/// Group commit: requests of one process that arrive while batches are at the database wait, and
/// those that waited go to the database together as a batch (one statement, one round trip), each
/// answered with its own answer. At most ``concurrentBatches`` batches are at the database at once,
/// and a key is in at most one of them: a household's pushes (``PushQueue``) are decided on the
/// state the batch before left. Across processes the database's row locks order them.
///
/// A request that finds a free slot leads: it takes every waiting request whose key is not at the
/// database, runs the batch, answers the batch's other requests, and hands the lead on to the oldest
/// request that can go next (or frees the slot).
final class BatchQueue<Item: Sendable, Key: Hashable & Sendable, Answer: Sendable>: Sendable {
    /// At most this many requests a batch.
    static var batchLimit: Int { 256 }
    /// Batches at the database at once: enough to keep the connections and the database's cores busy
    /// while one batch's round trip is under way.
    static var concurrentBatches: Int { 4 }

    /// How long a batch may take before its requests are answered `unavailable` and its slot and
    /// keys are let go: a statement the database never answers must not hold the queue. The statement
    /// is left to end on its own; if a write commits after all, its pushes were not acknowledged, and a
    /// device's retry is answered from the commands' records.
    let timeout: Duration
    private let key: @Sendable (Item) -> Key

    init(timeout: Duration = .seconds(10), key: @escaping @Sendable (Item) -> Key) {
        self.timeout = timeout
        self.key = key
    }

    private enum Turn { case lead([Waiting]), answered(Result<Answer, any Error>) }
    private struct Waiting {
        var id: Int
        var item: Item
        var key: Key
        var turn: CheckedContinuation<Turn, Never>
    }
    private struct State {
        var leaders = 0
        var waiting: [Waiting] = []
        /// The keys of the batches at the database.
        var busy: Set<Key> = []
        var nextID = 0

        /// Every waiting request whose key is not at the database (at most ``batchLimit``), taken out
        /// of the queue, their keys marked busy: the next batch.
        mutating func takeBatch() -> [Waiting] { topUp([]) }

        /// More for a batch about to go: waiting requests whose key is free or one of the batch's own
        /// (at most ``batchLimit`` in all), taken out of the queue, their keys marked busy.
        mutating func topUp(_ batch: [Waiting]) -> [Waiting] {
            let mine = Set(batch.map(\.key))
            var taken: [Waiting] = [], left: [Waiting] = []
            var keys = Set<Key>()
            for waiting in waiting {
                if batch.count + taken.count < BatchQueue.batchLimit, mine.contains(waiting.key) || !busy.contains(waiting.key) {
                    taken.append(waiting)
                    keys.insert(waiting.key)
                } else {
                    left.append(waiting)
                }
            }
            waiting = left
            busy.formUnion(keys)
            return taken
        }
    }
    private let state = Mutex(State())

    /// `item`, answered by the batch it goes with: `run` takes a batch and gives each request's answer,
    /// in order. Requests of one key may share a batch (a household's pushes, decided in order).
    func submit(_ item: Item, run: @escaping @Sendable ([Item]) async -> [Result<Answer, any Error>]) async throws -> Answer {
        let myKey = key(item)
        let myID = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let turn = await withCheckedContinuation { (turn: CheckedContinuation<Turn, Never>) in
            let batch = state.withLock { state -> [Waiting]? in
                state.waiting.append(Waiting(id: myID, item: item, key: myKey, turn: turn))
                guard state.leaders < Self.concurrentBatches, !state.busy.contains(myKey) else { return nil }
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
        // Requests answered together (a batch before this one) come back together: one turn of the
        // executor lets those already on their way join, rather than go in a batch of one and make
        // the rest wait a whole round trip behind it.
        await Task.yield()
        taken += state.withLock { [taken] in $0.topUp(taken) }
        let batch = taken
        let answers = await Self.within(timeout, count: batch.count) { await run(batch.map(\.item)) }
        // The next batch, if a waiting request can go now, led by its oldest; else the slot is freed.
        let next = state.withLock { state -> [Waiting]? in
            for waiting in batch { state.busy.remove(waiting.key) }
            let taken = state.takeBatch()
            if taken.isEmpty { state.leaders -= 1 }
            return taken.isEmpty ? nil : taken
        }
        if let next { next[0].turn.resume(returning: .lead(next)) }
        var mine: Result<Answer, any Error> = .failure(HubError.unavailable("the request was not answered"))
        for (index, waiting) in batch.enumerated() {
            let answer: Result<Answer, any Error> = index < answers.count ? answers[index] : .failure(HubError.unavailable("the request was not answered"))
            if waiting.id == myID { mine = answer } else { waiting.turn.resume(returning: .answered(answer)) }
        }
        return try mine.get()
    }

    /// `run`'s answers, or, once `timeout` has passed, `unavailable` for each of the batch's `count` requests.
    private static func within(_ timeout: Duration, count: Int,
                               _ run: @escaping @Sendable () async -> [Result<Answer, any Error>]) async -> [Result<Answer, any Error>] {
        let first = Once()
        return await withCheckedContinuation { (answered: CheckedContinuation<[Result<Answer, any Error>], Never>) in
            let timer = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                guard first.claim() else { return }
                answered.resume(returning: Array(repeating: .failure(HubError.unavailable("the database did not answer within \(timeout)")), count: count))
            }
            Task {
                let answers = await run()
                timer.cancel()
                guard first.claim() else { return }
                answered.resume(returning: answers)
            }
        }
    }
}

/// A push waiting for the group commit.
struct QueuedPush: Sendable {
    var household: HouseholdID
    var commands: [CommandEnvelope]
    var actor: String
}

/// The group commit of pushes: a household's pushes may share a batch, decided in order.
typealias PushQueue = BatchQueue<QueuedPush, HouseholdID, SyncResponse>

extension BatchQueue where Item == QueuedPush, Key == HouseholdID, Answer == SyncResponse {
    typealias Push = QueuedPush

    convenience init(timeout: Duration = .seconds(10)) { self.init(timeout: timeout, key: \.household) }

    /// `push`, answered by the batch it goes with: `write` takes a batch and gives each push's answer, in order.
    func push(_ push: Push, write: @escaping @Sendable ([Push]) async -> [Result<SyncResponse, any Error>]) async throws -> SyncResponse {
        try await submit(push, run: write)
    }
}

/// True for the first caller only.
final class Once: Sendable {
    private let done = Mutex(false)
    func claim() -> Bool { done.withLock { done in defer { done = true }; return !done } }
}
