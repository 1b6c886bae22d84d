import Foundation
import Metrics
import ShopEvents
import ShopProjections
import Synchronization

/// The hub's counters and timers, each made once: a metric made per request
/// costs a lookup in the factory's registry and its labels' strings every time.
/// Made after the process bootstrapped its metrics system (a metric keeps the
/// factory it was made by).
final class HubMetrics: Sendable {
    let commandsAccepted = Counter(label: "shop_hub_commands_total", dimensions: [("result", "accepted")])
    let commandsRejected = Counter(label: "shop_hub_commands_total", dimensions: [("result", "rejected")])
    let pushSeconds = Metrics.Timer(label: "shop_hub_push_seconds")
    let linesPulled = Counter(label: "shop_hub_lines_pulled_total")
    let pullSeconds = Metrics.Timer(label: "shop_hub_pull_seconds")
    private let requests = Mutex<[String: Counter]>([:])

    /// `shop_hub_requests_total` of one route and status (a few dozen pairs: the routes are fixed, unmatched paths are one).
    func requests(_ method: String, _ route: String, _ status: Int) -> Counter {
        let key = "\(method) \(route) \(status)"
        return requests.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "shop_hub_requests_total", dimensions: [("route", "\(method) \(route)"), ("status", "\(status)")])
            counters[key] = counter
            return counter
        }
    }

    /// Milliseconds with one decimal, as the log line gives them (`String(format:)` costs a Foundation formatter a request).
    static func milliseconds(_ elapsed: Duration) -> String {
        let tenths = elapsed.components.seconds * 10_000 + (elapsed.components.attoseconds + 50_000_000_000_000) / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
