import Foundation

// Clocks and id generators that give the same history every run, for tests
// and the demo: injected into the journal like the system's, never named by
// the rules. Each keeps a counter that copies share, safe from any thread.

extension Clock {
    /// Starts at `start` and moves on by `step` milliseconds on every reading.
    public static func stepping(from start: Timestamp, by step: Int64) -> Clock {
        let counter = SteppingCounter()
        return Clock { start.adding(milliseconds: step * counter.take()) }
    }
}

extension IDGenerator {
    /// 1, 2, 3, … written as UUIDs; for tests and reproducible demos.
    /// The counter lives in the generator, so copies share it.
    public static func sequential(startingAt first: UInt64 = 1, prefix: UInt32 = 0) -> IDGenerator {
        let counter = SequentialCounter(first)
        return IDGenerator {
            let n = counter.take()
            func p(_ shift: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: prefix >> shift) }
            func b(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: n >> shift) }
            // The prefix in bytes 0–3, the counter in bytes 8–15, big-endian; no array to allocate.
            return UUID(uuid: (p(24), p(16), p(8), p(0), 0, 0, 0, 0, b(56), b(48), b(40), b(32), b(24), b(16), b(8), b(0)))
        }
    }
}

private final class SteppingCounter: @unchecked Sendable {
    // @unchecked: `value` is read and written only under `lock`.
    private var value: Int64 = 0
    private let lock = NSLock()
    func take() -> Int64 {
        lock.lock(); defer { lock.unlock() }
        value += 1
        return value - 1
    }
}

private final class SequentialCounter: @unchecked Sendable {
    // @unchecked: `value` is read and written only under `lock`.
    private var value: UInt64
    private let lock = NSLock()
    init(_ first: UInt64) { value = first }
    func take() -> UInt64 {
        lock.lock(); defer { lock.unlock() }
        let n = value
        value &+= 1
        return n
    }
}
