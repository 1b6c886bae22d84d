import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

extension Substring {
    /// Without the spaces and tabs at either end (a header's value: tokens are ASCII).
    var trimmingBlanks: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return self[first...last]
    }
}
