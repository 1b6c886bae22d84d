import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

/// True for the first caller only.
final class Once: Sendable {
    private let done = Mutex(false)
    func claim() -> Bool { done.withLock { done in defer { done = true }; return !done } }
}
