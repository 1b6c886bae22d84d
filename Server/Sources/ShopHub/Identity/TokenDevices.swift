import ShopEvents
import Synchronization

/// The live devices of the tokens a process has authenticated, by token hash (hex), shared by
/// ``PostgresHubStorage`` and its line store (which forgets a token it finds revoked).
final class TokenDevices: Sendable {
    private let cache = Mutex<[String: DeviceRecord]>([:])

    func withLock<T>(_ body: (inout [String: DeviceRecord]) throws -> T) rethrows -> T {
        try cache.withLock { try body(&$0) }
    }

    /// Drops revoked tokens' devices.
    func forget(_ tokens: some Sequence<String>) {
        cache.withLock { cache in for token in tokens { cache[token] = nil } }
    }
}
