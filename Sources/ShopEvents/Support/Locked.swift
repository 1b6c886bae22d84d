import Foundation

/// A value that several threads share, read and changed only under its
/// lock: the package's one lock-guarded box, in the shape of the standard
/// library's `Mutex` (Synchronization), which needs macOS 15 and iOS 18
/// where the apps that embed the core are not held to them. The id sources,
/// the deterministic clocks and counters, the revert search's results, the
/// file watcher's flags and the tool's result of an async call keep their
/// state in one, so that each of them is checked `Sendable`.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `withLock`, with `lock` held; a
    // `Sendable` value may leave it as a copy. `UncheckedSendableTests` hammer it from many threads.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` on the value with the lock held; what it returns is the caller's.
    @inline(__always)
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
