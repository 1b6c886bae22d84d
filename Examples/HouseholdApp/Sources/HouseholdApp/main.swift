// HouseholdApp JOURNAL             — the app: two tasks write, a third follows
//                                    the events, a second process writes too,
//                                    and the model's views follow everything.
// HouseholdApp JOURNAL --widget    — the second process: a widget adding a few things.
import Foundation
import Observation
import ShopEvents
import ShopProjections

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "household-app.ndjson"

if arguments.contains("--widget") {
    let store = try await ShopStore(path: path, options: .init(actor: "widget", device: "widget"))
    for n in 0..<25 {
        try await store.execute(.createItem(item: ItemID(), name: "Widget item \(n)", location: nil, details: .none))
    }
    exit(0)
}

let store = try await ShopStore(path: path, options: .init(actor: "ana", device: "app"))
if await store.state.household == nil {
    try await store.execute(.createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
}
let start = await store.head.seq
let model = try await HouseholdModel(store: store)

// A task follows every event, from this process and any other.
let follower = Task {
    var seen = 0
    for try await _ in store.events(after: start) {
        seen += 1
        if seen == 2 * 100 + 25 { break }
    }
    return seen
}

// Two tasks write at once through one store.
try await withThrowingTaskGroup(of: Void.self) { group in
    for writer in ["ana", "ben"] {
        group.addTask {
            for n in 0..<100 {
                try await store.execute(CommandEnvelope(.createItem(item: ItemID(), name: "\(writer) item \(n) \(UUID())",
                                                                    location: nil, details: .none), actor: writer))
            }
        }
    }
    try await group.waitForAll()
}

// A second process writes the same journal at the same time.
let widget = Process()
widget.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
widget.arguments = [path, "--widget"]
try widget.run()
widget.waitUntilExit()

// The model changes when a command lands: observed, not polled.
let changed = AsyncStream<Void> { continuation in
    Task { @MainActor in
        withObservationTracking { _ = model.views } onChange: { continuation.yield(()) }
    }
}
try await store.execute(.createList(list: ListID(), name: "Seen by the model \(UUID())", priority: nil))
for await _ in changed { break }

let seen = try await follower.value
let head = await store.head.seq
var views = model.views
while views.asOf < head {   // the last events may still be on their way to the main actor
    try await Task.sleep(nanoseconds: 10_000_000)
    views = model.views
}
print("events followed: \(seen); the model is at event \(views.asOf) of \(head); \(views.state.liveItems.count) items")
guard seen == 225, views.asOf == head else { exit(1) }
