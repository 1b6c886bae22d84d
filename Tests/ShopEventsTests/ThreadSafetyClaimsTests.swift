import Foundation
import Testing
@testable import ShopEvents

/// What each `@unchecked Sendable` type's comment claims, exercised from real
/// threads at once. (The journal's pipelined encoder, the parallel line
/// reader, the file watch, the process transport and the revert search are
/// held to theirs by their own suites: `PipelinedCommitTests`,
/// `PrefetchTests`, `ShopStoreTests`, `SyncConcurrencyTests`, `LeanVerifyTests`.)
@Suite struct ThreadSafetyClaimsTests {
    /// The sequential ids: their counter is a `Locked` value — every id once, none skipped.
    @Test func aSequentialGeneratorSharedByEightThreadsGivesEveryIdOnce() {
        let ids = IDGenerator.sequential(prefix: 0xC0)
        let perThread = 5_000
        let results = Results<UUID>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            var mine: [UUID] = []
            for _ in 0..<perThread { mine.append(ids.makeUUID()) }
            results.add(mine)
        }
        let expected = Set((1...UInt64(8 * perThread)).map { n in IDGenerator.sequential(startingAt: n, prefix: 0xC0).makeUUID() })
        #expect(results.all.count == 8 * perThread)
        #expect(Set(results.all) == expected)
    }

    /// The stepping clock: the same claim — every step once.
    @Test func aSteppingClockSharedByEightThreadsGivesEveryTimeOnce() {
        let start = Timestamp("2026-01-01T00:00:00.000Z")!
        let clock = Clock.stepping(from: start, by: 3)
        let results = Results<Timestamp>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in results.add((0..<2_000).map { _ in clock.now() }) }
        #expect(Set(results.all) == Set((0..<16_000).map { start.adding(milliseconds: 3 * Int64($0)) }))
    }

    /// BatchChannel: every field is guarded by `condition` — batches arrive whole, in order, and the end after them.
    @Test func aChannelBetweenTwoThreadsHandsOverEveryBatchInOrder() {
        let channel = BatchChannel<Int, String>()
        let producer = Thread {
            for batch in 0..<2_000 { _ = channel.put(Array((batch * 10)..<(batch * 10 + 10))) }
            channel.finish("done")
        }
        producer.start()
        var taken: [Int] = []
        while let batch = channel.take() { taken += batch }
        #expect(taken == Array(0..<20_000))
        #expect(channel.waitForEnd() == "done")
    }

    /// Stopped early, the producer learns it at its next put, and nothing waits forever.
    @Test func aConsumerThatStopsEarlyStopsTheProducer() {
        let channel = BatchChannel<Int, String>()
        let refused = Results<Bool>()
        let producer = Thread {
            var puts = 0
            while channel.put([puts]) { puts += 1 }
            refused.add([true])
            channel.finish("stopped after \(puts)")
        }
        producer.start()
        _ = channel.take()
        channel.stop()
        #expect(channel.waitForEnd().hasPrefix("stopped after "))
        #expect(refused.all == [true])
    }
}

/// Results gathered from several threads.
private final class Results<T: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is read and written only under `lock`.
    private var items: [T] = []
    private let lock = NSLock()
    func add(_ more: [T]) { lock.lock(); items += more; lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}
