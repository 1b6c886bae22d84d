import Foundation

/// Batches from a thread that reads ahead to the thread that consumes them, in
/// order, at most a few in flight so that memory stays bounded. The producer
/// ends with ``finish(_:)``; the consumer may ``stop()`` early, after which the
/// producer's next ``put(_:)`` returns `false`.
final class BatchChannel<Element: Sendable, End: Sendable>: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    /// Small enough that the batches in flight hold little memory (about 150 KiB each for `verify`),
    /// large enough that handing one over is rare.
    static var batchSize: Int { 512 }
    private static var inFlight: Int { 4 }
    private let condition = NSCondition()
    private var batches: [[Element]] = []
    private var end: End?
    private var stopped = false

    /// Waits for room; `false` when the consumer stopped (the producer should too).
    func put(_ batch: [Element]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= Self.inFlight, !stopped { condition.wait() }
        guard !stopped else { return false }
        batches.append(batch)
        condition.broadcast()
        return true
    }

    /// The producer is done; `end` says how it ended.
    func finish(_ end: End) {
        condition.lock()
        self.end = end
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; `nil` once the producer has finished and every batch was taken.
    func take() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty, end == nil { condition.wait() }
        guard !batches.isEmpty else { return nil }
        let batch = batches.removeFirst()
        condition.broadcast()
        return batch
    }

    /// The consumer is done (or gave up): what is queued is dropped.
    func stop() {
        condition.lock()
        stopped = true
        batches.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the producer has finished; how it ended.
    func waitForEnd() -> End {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let end { return end }
            condition.wait()
        }
    }
}
