import Foundation
import ShopEvents
import ShopProjections

/// `bench --suggestions` (docs/VIEWS.md, "Suggestions": it must answer within 5 ms for a
/// household of 5,000 items): a generated household of N items with a
/// year of purchases — staples bought every few days or weeks, some of them
/// due, other items now and then, a few purchases reverted, a list half
/// full — folded in memory; then the suggestions view asked again and
/// again, as an app does on every keystroke, for text of 0 to 4 letters
/// taken from the items' names, with and without the list: the time of
/// each question, median and 99th percentile for each length, by the wall
/// clock and by the thread's CPU time (which leaves out the waits of a
/// machine shared with other work).
enum SuggestionsBench {
    static let help = """
      --suggestions    measure the suggestions view instead: a household of
                       --items N items (default 5000) with a year of purchases; --runs R × 200
                       questions for each prefix length 0 to 4: median and p99
    """

    static let now = Timestamp("2026-11-01T18:00:00.000Z")!   // reason: a literal in the journal's spelling

    static func run(items: Int, runs: Int, json: Bool) -> String {
        var rng = SeededRandom(seed: 51)
        let (views, list) = household(items: items, rng: &rng)
        var index = SuggestionIndex(views)
        let build = seconds { index = SuggestionIndex(views) }
        let words = views.state.items.values.flatMap { $0.name.split(separator: " ").map(String.init) }
        var rows: [(length: Int, samples: Samples, cpu: Samples, offered: Int)] = []
        for length in 0...4 {
            var samples = Samples(values: []), cpu = Samples(values: [])
            var offered = 0
            for n in 0..<(runs * 200) {
                // reason: every generated name has words
                let word = words.randomElement(using: &rng)!
                let typed = String(word.prefix(length))
                let prefix = n % 3 == 0 ? typed.lowercased() : typed
                let cpuStart = threadCPUSeconds()
                samples.values.append(seconds {
                    offered += SuggestionsView(views, index: index, list: n % 2 == 0 ? list : nil, prefix: prefix, now: now)?.items.count ?? 0
                })
                cpu.values.append(threadCPUSeconds() - cpuStart)
            }
            rows.append((length, samples, cpu, offered))
        }
        let purchases = views.audit.records.count
        if json {
            return JSONValue.object([
                ("items", .int(items)), ("events", .int(views.asOf)), ("purchases", .int(purchases)), ("indexBuildMs", .double(build * 1000)),
                ("prefixes", .array(rows.map { row in
                    .object([("length", .int(row.length)), ("questions", .int(row.samples.values.count)),
                             ("medianMicroseconds", .double(row.samples.median * 1e6)),
                             ("p99Microseconds", .double(row.samples.percentile(0.99) * 1e6)),
                             ("maxMicroseconds", .double(row.samples.max * 1e6)),
                             ("cpuMedianMicroseconds", .double(row.cpu.median * 1e6)),
                             ("cpuP99Microseconds", .double(row.cpu.percentile(0.99) * 1e6))])
                })),
            ]).text(pretty: true)
        }
        var table = Table(["prefix letters", "questions", "median", "p99", "max", "CPU median", "CPU p99", "offered (mean)"],
                          rightAligned: [0, 1, 2, 3, 4, 5, 6, 7])
        for row in rows {
            table.add(["\(row.length)", "\(row.samples.values.count)", micro(row.samples.median), micro(row.samples.percentile(0.99)),
                       micro(row.samples.max), micro(row.cpu.median), micro(row.cpu.percentile(0.99)),
                       String(format: "%.1f", Double(row.offered) / Double(row.samples.values.count))])
        }
        return """
        Suggestions: \(items) items, \(views.asOf) events, \(purchases) purchases over a year; index built in \(String(format: "%.1f", build * 1000)) ms
        \(table.render())
        """
    }

    private static func micro(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }

    /// This thread's CPU time: what a question cost, whatever else the machine ran meanwhile.
    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The household: items named from a few hundred words (accents among
    /// them), purchases over the year before ``now``, and a list.
    static func household(items count: Int, rng: inout SeededRandom) -> (HouseholdViews, ListID) {
        var fold = Fold(at: now.adding(milliseconds: -400 * 86_400_000))
        fold.run(.createHousehold(household: HouseholdID(), name: "Bench", currency: "EUR", timeZone: "Europe/Berlin"))
        let kinds = ["Organic", "Fresh", "Whole", "Light", "Crème", "Smoked", "Frozen", "Bio", "Spicy", "Sweet", "Green", "Red", "Café",
                     "Dark", "Wild", "Baby", "Greek", "Soft", "Crunchy", "Mild"]
        let foods = ["milk", "bread", "eggs", "apples", "coffee", "rice", "soap", "tea", "butter", "cheese", "yoghurt", "pasta", "beans",
                     "tomatoes", "onions", "garlic", "pepper", "salt", "sugar", "flour", "oats", "honey", "jam", "ham", "salmon", "tuna",
                     "chicken", "beef", "tofu", "lettuce", "spinach", "carrots", "potatoes", "lemons", "oranges", "bananas", "grapes",
                     "crisps", "nuts", "olives", "pâté", "brûlée", "fraîche", "jalapeños", "crêpes", "müsli", "açaí", "soup", "juice", "water"]
        var items: [ItemID] = []
        var named = Set<String>()
        while items.count < count {
            // reason: both word lists are non-empty
            var name = "\(kinds.randomElement(using: &rng)!) \(foods.randomElement(using: &rng)!)"
            if named.contains(name.lowercased()) { name += " \(items.count)" }
            named.insert(name.lowercased())
            let item = ItemID()
            fold.run(.createItem(item: item, name: name, details: ItemDetails(unitPrice: Int.random(in: 49...1999, using: &rng))))
            items.append(item)
        }
        fold.at = now.adding(milliseconds: -1000)
        var bought: [PurchaseID] = []
        for item in items {
            for time in purchaseTimes(&rng) {
                let purchase = PurchaseID()
                fold.run(.purchaseItem(purchase: purchase, item: item, purchasedAt: time))
                bought.append(purchase)
            }
        }
        for purchase in bought where Int.random(in: 0..<50, using: &rng) == 0 { fold.run(.revertPurchase(purchase: purchase)) }
        let list = ListID()
        fold.run(.createList(list: list, name: "Weekly"))
        for item in items.shuffled(using: &rng).prefix(40) { fold.run(.addItemToList(list: list, item: item)) }
        return (fold.views, list)
    }

    /// A year of one item's purchases: a staple (8 %) every 3 to 30 days,
    /// last bought up to two and a half intervals ago (due when one or more);
    /// an occasional item (30 %) 2 to 8 times; the rest never.
    static func purchaseTimes(_ rng: inout SeededRandom) -> [Timestamp] {
        let day = 86_400_000.0
        let kind = Int.random(in: 0..<100, using: &rng)
        if kind < 8 {
            let every = [3.0, 7, 14, 30].randomElement(using: &rng)! * day   // reason: a non-empty literal
            var time = -Double.random(in: 0.3...2.5, using: &rng) * every
            var times: [Timestamp] = []
            while time > -365 * day {
                times.append(now.adding(milliseconds: Int64(time)))
                time -= every + Double.random(in: -0.2...0.2, using: &rng) * every
            }
            return times
        }
        guard kind < 38 else { return [] }
        return (0..<Int.random(in: 2...8, using: &rng)).map { _ in now.adding(milliseconds: -Int64(Double.random(in: 0...365, using: &rng) * day)) }
    }

    /// Commands decided and folded into views in memory, one millisecond apart.
    struct Fold {
        var views = HouseholdViews()
        var at: Timestamp

        mutating func run(_ command: Command) {
            guard let events = try? ShopDecider.decide(command, views.state, actor: "ana") else { return }
            for event in events {
                at = at.adding(milliseconds: 1)
                views.apply(RecordedEvent(seq: views.asOf + 1, id: EventID(), at: at, actor: "ana", command: CommandID(), event: event, prev: .zero))
            }
        }
    }
}
