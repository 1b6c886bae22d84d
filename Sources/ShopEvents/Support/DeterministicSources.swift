import Foundation

// Clocks and id generators that give the same history every run, for tests
// and the demo: injected into the journal like the system's, never named by
// the rules. Each keeps a counter that copies share, safe from any thread.

extension Clock {
    /// Starts at `start` and moves on by `step` milliseconds on every reading.
    public static func stepping(from start: Timestamp, by step: Int64) -> Clock {
        let readings = Locked<Int64>(0)
        return Clock {
            let n = readings.withLock { count in
                defer { count += 1 }
                return count
            }
            return start.adding(milliseconds: step * n)
        }
    }
}

extension IDGenerator {
    /// 1, 2, 3, … written as UUIDs; for tests and reproducible demos.
    /// The counter lives in the generator, so copies share it.
    public static func sequential(startingAt first: UInt64 = 1, prefix: UInt32 = 0) -> IDGenerator {
        let next = Locked(first)
        return IDGenerator {
            let n = next.withLock { value in
                defer { value &+= 1 }
                return value
            }
            func p(_ shift: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: prefix >> shift) }
            func b(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: n >> shift) }
            // The prefix in bytes 0–3, the counter in bytes 8–15, big-endian; no array to allocate.
            return UUID(uuid: (p(24), p(16), p(8), p(0), 0, 0, 0, 0, b(56), b(48), b(40), b(32), b(24), b(16), b(8), b(0)))
        }
    }
}
