import Foundation
import Metrics
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
    struct Push: Sendable {
        var household: HouseholdID
        var commands: [CommandEnvelope]
        var actor: String
        /// The hash (hex) of the token it came with, checked live in the statement that writes it;
        /// nil where the caller checked it already.
        var token: String? = nil
    }

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

/// True for the first caller only.
final class Once: Sendable {
    private let done = Mutex(false)
    func claim() -> Bool { done.withLock { done in defer { done = true }; return !done } }
}

/// The hub's counters and timers, each made once: a metric made per request
/// costs a lookup in the factory's registry and its labels' strings every time.
/// Made after the process bootstrapped its metrics system (a metric keeps the
/// factory it was made by).
final class HubMetrics: Sendable {
    let commandsAccepted = Counter(label: "shop_hub_commands_total", dimensions: [("result", "accepted")])
    let commandsRejected = Counter(label: "shop_hub_commands_total", dimensions: [("result", "rejected")])
    let pushSeconds = Metrics.Timer(label: "shop_hub_push_seconds")
    let linesPulled = Counter(label: "shop_hub_lines_pulled_total")
    let pullSeconds = Metrics.Timer(label: "shop_hub_pull_seconds")
    private let requests = Mutex<[String: Counter]>([:])

    /// `shop_hub_requests_total` of one route and status (a few dozen pairs: the routes are fixed, unmatched paths are one).
    func requests(_ method: String, _ route: String, _ status: Int) -> Counter {
        let key = "\(method) \(route) \(status)"
        return requests.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "shop_hub_requests_total", dimensions: [("route", "\(method) \(route)"), ("status", "\(status)")])
            counters[key] = counter
            return counter
        }
    }

    /// Milliseconds with one decimal, as the log line gives them (`String(format:)` costs a Foundation formatter a request).
    static func milliseconds(_ elapsed: Duration) -> String {
        let tenths = elapsed.components.seconds * 10_000 + (elapsed.components.attoseconds + 50_000_000_000_000) / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension Duration {
    /// In seconds, fractions included.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension Substring {
    /// Without the spaces and tabs at either end (a header's value: tokens are ASCII).
    var trimmingBlanks: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return self[first...last]
    }
}
