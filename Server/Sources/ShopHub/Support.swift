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
