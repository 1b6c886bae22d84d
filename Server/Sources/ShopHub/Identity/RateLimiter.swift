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
