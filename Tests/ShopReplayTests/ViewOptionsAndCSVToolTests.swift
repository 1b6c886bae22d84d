import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// The views' options at the tool, run as a child process: due counted to
/// now, `--for` an unknown member, usage errors and messages, the demo's
/// ids, locations numbered 1…n, `audit --csv` and `stats --csv` read by
/// Python's `csv` module.
@Suite struct ViewOptionsAndCSVToolTests {
    static let milk = "00000000-0000-0000-0000-0000000000a1", cheese = "00000000-0000-0000-0000-0000000000a2"
    static let eggs = "00000000-0000-0000-0000-0000000000a3", market = "00000000-0000-0000-0000-0000000000c1"
    static let weekly = "00000000-0000-0000-0000-0000000000b1"

    /// A household in Berlin paying in euros: items (one whose name needs quoting in CSV), a store,
    /// priced purchases in winter and summer time, eggs bought weekly in January, a revert.
    static func household(_ tool: ToolRunner) throws {
        let lines = [
            #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#,
            #"{"type":"CreateItem","data":{"item":"\#(milk)","name":"Milk"}}"#,
            #"{"type":"CreateItem","data":{"item":"\#(cheese)","name":"Cheese, \"aged\""}}"#,
            #"{"type":"CreateItem","data":{"item":"\#(eggs)","name":"Eggs"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(market)","name":"Market"}}"#,
            #"{"type":"CreateList","data":{"list":"\#(weekly)","name":"Weekly"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e01","item":"\#(eggs)","purchasedAt":"2026-01-05T09:00:00.000Z"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e02","item":"\#(eggs)","purchasedAt":"2026-01-12T09:00:00.000Z"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e03","item":"\#(eggs)","purchasedAt":"2026-01-19T09:00:00.000Z"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000f01","item":"\#(cheese)","quantity":1,"unitPrice":450,"purchasedAt":"2026-07-01T12:00:00.000Z"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000f02","item":"\#(milk)","quantity":2,"unitPrice":119,"store":"\#(market)","purchasedAt":"2026-11-26T09:00:00.250Z"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000f03","item":"\#(milk)","quantity":1,"unitPrice":5,"purchasedAt":"2026-11-26T09:30:00.000Z"}}"#,
            #"{"type":"RevertPurchase","data":{"purchase":"00000000-0000-0000-0000-000000000f03"}}"#,
            #"{"type":"AddItemToList","data":{"list":"\#(weekly)","item":"\#(milk)"}}"#,
        ]
        let applied = try tool.run(["apply", "--actor", "ana", "--json"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
    }

    @Test("view due counts days to --now, to the time of the --as-of event, else to the clock, and says which")
    func dueToNow() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        let journal = tool.path("shop.ndjson")
        let events = try JournalReader.readAll(path: journal)
        let november = Timestamp("2026-11-03T09:00:00.000Z")!
        let eggs = DueView.Row(item: ItemID(Self.eggs)!, name: "Eggs", lastPurchased: Timestamp("2026-01-19T09:00:00.000Z")!,
                               meanIntervalDays: 7, daysSince: 288, overdue: 288.0 / 7)
        let pinned = try tool.run(["view", "due", "--json", "--now", "2026-11-03T09:00:00.000Z"])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        #expect(try JSONValue.parse(Array(pinned.stdout.utf8)) == DueView(asOf: events.count, now: november, items: [eggs]).json)
        let text = try tool.run(["view", "due", "--now", "2026-11-03T09:00:00.000Z"])
        #expect(text.stdout == """
            Staples that are due  (as of seq \(events.count))
            Days counted to 2026-11-03 10:00 (--now)

            item  last bought       every    since  overdue
            Eggs  2026-01-19 10:00  7.0 d  288.0 d    41.1×

            """)
        // A day to --now is its start in the household's zone.
        let day = try tool.run(["view", "due", "--json", "--now", "2026-11-03"])
        #expect(try JSONValue.parse(Array(day.stdout.utf8))["now"] == "2026-11-02T23:00:00.000Z")

        // As of seq 9 (the third eggs, written today): days to that event's time.
        let asOf = try tool.run(["view", "due", "--json", "--as-of", "9"])
        let since = Double(events[8].at.millisecondsSince1970 - eggs.lastPurchased.millisecondsSince1970) / 86_400_000
        var then = eggs
        (then.daysSince, then.overdue) = (since, since / 7)
        #expect(try JSONValue.parse(Array(asOf.stdout.utf8)) == DueView(asOf: 9, now: events[8].at, items: [then]).json)
        let asOfText = try tool.run(["view", "due", "--as-of", "9"])
        #expect(asOfText.stdout.split(separator: "\n").dropFirst().first.map(String.init) == "Days counted to \(HouseholdCalendar(timeZone: "Europe/Berlin").minute(events[8].at)) (the time of seq 9)")

        // The clock: the time of the run.
        let before = Timestamp(Date())
        let clock = try tool.run(["view", "due", "--json"])
        let after = Timestamp(Date())
        let now = try #require(Timestamp(try JSONValue.parse(Array(clock.stdout.utf8))["now"]?.stringValue ?? ""))
        #expect(before.millisecondsSince1970 - 1 <= now.millisecondsSince1970 && now <= after)
        #expect(try tool.run(["view", "due"]).stdout.contains("(the clock)"))

        for (arguments, message) in [(["view", "due", "--now", "soon"], "--now expects a time such as 2026-03-01T18:00:00.000Z or a day 2026-03-01, not \"soon\""),
                                     (["view", "lists", "--now", "2026-11-03"], "--now is for the due and suggestions views, not lists")] {
            let refused = try tool.run(arguments)
            #expect(refused.status == 2 && refused.stdout.isEmpty)
            #expect(refused.stderr == "shop-replay view: \(message)\nSee shop-replay view --help\n")
        }
    }

    @Test("--for a name that is no member of a closed household is refused, unknown_member; an open household takes any name")
    func forUnknownMember() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        let open = try tool.run(["view", "shopping-list-by-name", "--list", "Weekly", "--for", "zed", "--json"])
        #expect(open.status == 0)
        #expect(try JSONValue.parse(Array(open.stdout.utf8))["for"] == "zed")
        #expect(try tool.run(["apply", "--actor", "ana"], stdin: #"{"type":"AddMember","data":{"member":"ben","role":"member"}}"# + "\n").status == 0)
        let before = Scratch.bytes(tool.path("shop.ndjson"))
        for view in ["shopping-list-by-name", "shopping-list-by-location"] {
            let refused = try tool.run(["view", view, "--list", "Weekly", "--for", "zed"])
            #expect(refused.status == 2 && refused.stdout.isEmpty)
            #expect(refused.stderr == "shop-replay view: unknown_member: --for \"zed\" is not a member; the members are ana, ben\nSee shop-replay view --help\n")
        }
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == before)
        #expect(try tool.run(["view", "shopping-list-by-name", "--list", "Weekly", "--for", "ben"]).status == 0)
    }

    @Test("an unknown --item of view prices is a usage error as --list and audit --item are; verify names the journal as view does; the unknown command's colon")
    func usageErrors() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        let views = try ViewEngine.views(journal: tool.path("shop.ndjson"), useSnapshot: false).0
        let unknown: String
        do { _ = try views.state.find(item: "Nope"); unknown = "" } catch { unknown = error.message }
        let prices = try tool.run(["view", "prices", "--item", "Nope"])
        #expect(prices.status == 2 && prices.stdout.isEmpty)
        #expect(prices.stderr == "shop-replay view: \(unknown)\nSee shop-replay view --help\n")
        let audit = try tool.run(["audit", "--item", "Nope"])
        #expect(audit.status == 2 && audit.stderr.hasPrefix("shop-replay audit: "))
        #expect(try tool.run(["view", "prices", "--item", "Milk"]).status == 0)

        // A journal named by a relative path: every command names it by the same (absolute) path.
        let missing = try tool.run(["view", "lists", "--journal", "missing.ndjson"])
        let verify = try tool.run(["verify", "--journal", "missing.ndjson"])
        #expect(missing.status == 3 && verify.status == 3)
        let named = missing.stderr.replacingOccurrences(of: "shop-replay view: ", with: "shop-replay verify: ")
        #expect(verify.stderr == named, "view: \(missing.stderr) verify: \(verify.stderr)")
        #expect(verify.stderr.contains("/missing.ndjson") && !verify.stderr.contains(" missing.ndjson"))

        let command = try tool.run(["frobnicate"])
        #expect(command.status == 2)
        #expect(command.stderr.hasPrefix("shop-replay: unknown command \"frobnicate\"; the commands are demo, "))
    }

    @Test("the demo's ids look random (version 4, every purchase's short id its own) and the same seed writes the same journal")
    func demoIDs() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo", "--journal", "one.ndjson", "--json"]).status == 0)
        #expect(try tool.run(["demo", "--journal", "two.ndjson", "--json"]).status == 0)
        #expect(Scratch.bytes(tool.path("one.ndjson")) == Scratch.bytes(tool.path("two.ndjson")), "the same seed, the same bytes")
        let events = try JournalReader.readAll(path: tool.path("one.ndjson"))
        var purchases: [PurchaseID] = [], reverts: Set<PurchaseID> = []
        for recorded in events {
            if case let .itemPurchased(purchase, _, _, _, _, _, _, _) = recorded.event { purchases.append(purchase) }
            if case let .purchaseReverted(purchase) = recorded.event { reverts.insert(purchase) }
        }
        #expect(purchases.count > 500)
        let short = purchases.map { String($0.description.prefix(8)) }
        #expect(Set(short).count == purchases.count, "each purchase's first 8 hex digits name it alone")
        let ids = purchases.map(\.description) + events.map(\.id.description) + events.map(\.command.description)
        #expect(ids.allSatisfy { Array($0)[14] == "4" && "89AB".contains(Array($0)[19]) }, "version 4, RFC 4122 variant")
        #expect(Set(events.map(\.id)).count == events.count)
        // RevertPurchase by a short id names the one purchase.
        let last = try #require(purchases.last { !reverts.contains($0) })
        let revert = try tool.run(["apply", "--journal", "one.ndjson", "--actor", "ana", "--json"],
                                  stdin: #"{"type":"RevertPurchase","data":{"purchase":"\#(last.description.prefix(8))"}}"# + "\n")
        #expect(revert.status == 0, "\(revert.stdout)")
        let reverted = try JournalReader.readAll(path: tool.path("one.ndjson")).last?.event
        #expect(reverted == .purchaseReverted(purchase: last))
        // Another seed, other ids.
        #expect(try tool.run(["demo", "--journal", "three.ndjson", "--seed", "2", "--json"]).status == 0)
        let other = try JournalReader.readAll(path: tool.path("three.ndjson"))
        #expect(Set(other.map(\.id)).isDisjoint(with: Set(events.map(\.id))))
    }

    @Test("after a location is deleted, view locations numbers the rest 1…n, Unknown last; the JSON keeps each one's position")
    func locationsNumbered() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let lines = [
            #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"UTC"}}"#,
            #"{"type":"CreateLocation","data":{"name":"Dairy"}}"#,
            #"{"type":"CreateLocation","data":{"name":"Closed aisle"}}"#,
            #"{"type":"CreateLocation","data":{"name":"Bakery"}}"#,
            #"{"type":"DeleteLocation","data":{"location":"Closed aisle"}}"#,
        ]
        #expect(try tool.run(["apply", "--actor", "ana"], stdin: lines.joined(separator: "\n") + "\n").status == 0)
        let text = try tool.run(["view", "locations"])
        #expect(text.stdout == """
            Locations in visiting order  (as of seq 5)

               #  location          items
               1  Dairy                 0
               2  Bakery                0
            last  Unknown Location      0

            """)
        let json = try JSONValue.parse(Array(try tool.run(["view", "locations", "--json"]).stdout.utf8))
        #expect(json["locations"]?.arrayValue?.compactMap { $0["position"] } == [1, 3, .int(Limits.unknownLocationPosition)])
    }

    @Test("audit --csv and stats --csv, read by Python's csv module: a header, whole rows, decimals of the currency, local times with their offset")
    func csv() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        let events = try JournalReader.readAll(path: tool.path("shop.ndjson"))
        func event(_ seq: Int) -> String { events[seq - 1].id.description }
        let unknown = LocationID.unknown.description

        let audit = try tool.run(["audit", "--csv"])
        #expect(audit.status == 0, "\(audit.stderr)")
        #expect(audit.stdout.hasSuffix("\r\n") && !audit.stdout.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF ends every line")
        #expect(audit.stdout.contains(#","Cheese, ""aged""","#), "a field with a comma and quotes is quoted, its quotes doubled")
        let header = ["seq", "event", "purchase", "purchasedAt", "actor", "item", "itemName", "quantity", "unitPrice",
                      "list", "listName", "location", "locationName", "reverted", "store", "storeName"]
        func eggs(_ seq: Int, _ n: Int, _ day: String) -> [String] {
            ["\(seq)", event(seq), "00000000-0000-0000-0000-000000000E0\(n)", "2026-01-\(day)T10:00:00+01:00", "ana", Self.eggs.uppercased(), "Eggs",
             "1", "", "", "", unknown, "Unknown Location", "false", "", ""]
        }
        #expect(try Self.readCSV(tool, audit.stdout) == [
            header,
            eggs(7, 1, "05"), eggs(8, 2, "12"), eggs(9, 3, "19"),
            ["10", event(10), "00000000-0000-0000-0000-000000000F01", "2026-07-01T14:00:00+02:00", "ana", Self.cheese.uppercased(), "Cheese, \"aged\"",
             "1", "4.50", "", "", unknown, "Unknown Location", "false", "", ""],
            ["11", event(11), "00000000-0000-0000-0000-000000000F02", "2026-11-26T10:00:00+01:00", "ana", Self.milk.uppercased(), "Milk",
             "2", "1.19", "", "", unknown, "Unknown Location", "false", Self.market.uppercased(), "Market"],
            ["12", event(12), "00000000-0000-0000-0000-000000000F03", "2026-11-26T10:30:00+01:00", "ana", Self.milk.uppercased(), "Milk",
             "1", "0.05", "", "", unknown, "Unknown Location", "true", "", ""],
        ])
        // The filters hold for CSV too.
        #expect(try Self.readCSV(tool, try tool.run(["audit", "--csv", "--item", "Milk", "--from", "2026-11-26T09:15:00Z"]).stdout).count == 2)

        let stats = try tool.run(["stats", "--csv"])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(try Self.readCSV(tool, stats.stdout) == [
            ["item", "name", "purchases", "quantity", "spend", "first", "last", "meanIntervalDays"],
            [Self.cheese.uppercased(), "Cheese, \"aged\"", "1", "1", "4.50", "2026-07-01T14:00:00+02:00", "2026-07-01T14:00:00+02:00", ""],
            [Self.eggs.uppercased(), "Eggs", "3", "3", "0.00", "2026-01-05T10:00:00+01:00", "2026-01-19T10:00:00+01:00", "7.0"],
            [Self.milk.uppercased(), "Milk", "1", "2", "2.38", "2026-11-26T10:00:00+01:00", "2026-11-26T10:00:00+01:00", ""],
        ])

        for command in ["audit", "stats"] {
            let both = try tool.run([command, "--csv", "--json"])
            #expect(both.status == 2 && both.stderr == "shop-replay \(command): --csv and --json are two formats of the same answer: give one\nSee shop-replay \(command) --help\n")
            #expect(try tool.run([command, "--help"]).stdout.contains("--csv"))
        }
    }

    @Test("amounts have the currency's own digits: none for yen, three for dinars")
    func csvCurrencyDigits() throws {
        for (currency, price, shown) in [("JPY", 249, "249"), ("KWD", 1250, "1.250"), ("EUR", 7, "0.07")] {
            let tool = ToolRunner()
            defer { tool.remove() }
            let lines = [
                #"{"type":"CreateHousehold","data":{"name":"Home","currency":"\#(currency)","timeZone":"UTC"}}"#,
                #"{"type":"CreateItem","data":{"name":"Tea"}}"#,
                #"{"type":"PurchaseItem","data":{"item":"Tea","unitPrice":\#(price),"purchasedAt":"2026-11-01T08:00:00.000Z"}}"#,
            ]
            #expect(try tool.run(["apply", "--actor", "ana"], stdin: lines.joined(separator: "\n") + "\n").status == 0)
            let rows = try Self.readCSV(tool, try tool.run(["audit", "--csv"]).stdout)
            #expect(rows.count == 2 && rows.last?[8] == shown && rows.last?[3] == "2026-11-01T08:00:00+00:00", "\(currency): \(rows)")
        }
    }

    /// The rows Python's `csv` module reads from `text` (a file opened with `newline=''`, as its documentation says).
    static func readCSV(_ tool: ToolRunner, _ text: String) throws -> [[String]] {
        let file = tool.path("read-\(UUID().uuidString).csv")
        Scratch.write(Array(text.utf8), to: file)
        let script = "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding='utf-8') as f: print(json.dumps(list(csv.reader(f))))"
        let read = try tool.run(["python3", "-c", script, file], executable: "/usr/bin/env")
        #expect(read.status == 0, "\(read.stderr)")
        return try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String]] ?? []
    }
}
