import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

extension Duration {
    /// In seconds, fractions included.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
