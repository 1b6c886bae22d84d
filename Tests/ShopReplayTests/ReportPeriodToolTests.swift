import Foundation
import Testing
import ShopTestSupport

/// The `report` command (docs/REPORT.md), run as a user runs it: the
/// page's period runs forwards whatever order the purchases were entered in,
/// a period asked for backwards is a usage error, and a real browser draws a
/// week's calendar at its own size, not stretched across a desktop.
@Suite struct ReportPeriodToolTests {
    /// A week in Berlin: Milk bought on the 26th, then four purchases of the
    /// days before entered after it (`purchasedAt`), out of order; a 5-second trip.
    static let week = #"""
    {"type":"CreateHousehold","at":"2026-11-20T08:00:00.000Z","data":{"name":"Week","currency":"EUR","timeZone":"Europe/Berlin"}}
    {"type":"CreateLocation","at":"2026-11-20T08:00:01.000Z","data":{"name":"Produce"}}
    {"type":"CreateLocation","at":"2026-11-20T08:00:02.000Z","data":{"name":"Dairy"}}
    {"type":"CreateStore","at":"2026-11-20T08:00:03.000Z","data":{"name":"Corner Shop"}}
    {"type":"CreateStore","at":"2026-11-20T08:00:04.000Z","data":{"name":"Big Market"}}
    {"type":"CreateItem","at":"2026-11-20T08:00:05.000Z","data":{"name":"Apples","location":"Produce","unitPrice":299,"unit":"kg"}}
    {"type":"CreateItem","at":"2026-11-20T08:00:06.000Z","data":{"name":"Milk","location":"Dairy","unitPrice":119,"unit":"l"}}
    {"type":"CreateItem","at":"2026-11-20T08:00:07.000Z","data":{"name":"Yoghurt","location":"Dairy","unitPrice":59}}
    {"type":"CreateItem","at":"2026-11-20T08:00:08.000Z","data":{"name":"Bananas","location":"Produce","unitPrice":189,"unit":"kg"}}
    {"type":"CreateList","at":"2026-11-20T08:00:09.000Z","data":{"name":"Weekly"}}
    {"type":"AddItemToList","at":"2026-11-20T08:00:10.000Z","data":{"list":"Weekly","item":"Apples","quantity":1.5}}
    {"type":"AddItemToList","at":"2026-11-20T08:00:11.000Z","data":{"list":"Weekly","item":"Yoghurt","quantity":4}}
    {"type":"AssignEntry","at":"2026-11-20T08:00:12.000Z","data":{"list":"Weekly","item":"Apples","member":"ben"}}
    {"type":"StartTrip","at":"2026-11-26T09:00:00.000Z","data":{"trip":"7f000000-0000-4000-8000-000000000001","store":"Corner Shop"}}
    {"type":"EndTrip","at":"2026-11-26T09:00:05.000Z","data":{"trip":"7f000000-0000-4000-8000-000000000001"}}
    {"type":"PurchaseItem","actor":"ben","at":"2026-11-26T09:00:06.000Z","data":{"item":"Milk","quantity":2,"store":"Corner Shop"}}
    {"type":"PurchaseItem","actor":"ana","at":"2026-11-26T09:10:00.000Z","data":{"item":"Apples","quantity":1.25,"store":"Big Market","purchasedAt":"2026-11-20T16:00:00.000Z"}}
    {"type":"PurchaseItem","actor":"ana","at":"2026-11-26T09:11:00.000Z","data":{"item":"Yoghurt","quantity":6,"store":"Big Market","purchasedAt":"2026-11-22T10:00:00.000Z"}}
    {"type":"PurchaseItem","actor":"ben","at":"2026-11-26T09:12:00.000Z","data":{"item":"Bananas","quantity":0.8,"purchasedAt":"2026-11-24T17:30:00.000Z"}}
    {"type":"PurchaseItem","actor":"ana","at":"2026-11-26T09:13:00.000Z","data":{"item":"Milk","quantity":1,"store":"Big Market","unitPrice":109,"purchasedAt":"2026-11-23T11:00:00.000Z"}}
    """# + "\n"

    static func withWeek() throws -> ToolRunner {
        let tool = ToolRunner()
        let result = try tool.run(["apply", "--actor", "ana"], stdin: week)
        precondition(result.status == 0, "apply failed: \(result.stdout) \(result.stderr)")
        return tool
    }

    @Test func thePagesPeriodRunsFromTheEarliestToTheLatestPurchase() throws {
        let tool = try Self.withWeek()
        defer { tool.remove() }
        let run = try tool.run(["report", "--out", "week.html"])
        #expect(run.status == 0, "\(run.stderr)")
        let html = String(decoding: Scratch.bytes(tool.path("week.html")), as: UTF8.self)
        // In journal order the purchases were on the 26th, 20th, 22nd, 24th and 23rd.
        #expect(html.split(separator: "\n").first { $0.hasPrefix("<p class=\"meta\">") }
                == "<p class=\"meta\">2026-11-20 to 2026-11-26 · amounts in EUR · times in Europe/Berlin · as of event 20</p>")
        let from = try tool.run(["report", "--out", "from.html", "--from", "2026-11-23"])
        #expect(from.status == 0, "\(from.stderr)")
        #expect(String(decoding: Scratch.bytes(tool.path("from.html")), as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("<p class=\"meta\">") }
                == "<p class=\"meta\">2026-11-23 to 2026-11-26 · amounts in EUR · times in Europe/Berlin · as of event 20</p>")
    }

    @Test("--lang de writes the page in German, --lang en as without it; another language is a usage error that writes nothing")
    func theReportInTheLanguageAsked() throws {
        let tool = try Self.withWeek()
        defer { tool.remove() }
        for (code, meta) in [("de", "<p class=\"meta\">2026-11-20 bis 2026-11-26 · Beträge in EUR · Zeiten in Europe/Berlin · Stand: Ereignis 20</p>"),
                             ("en", "<p class=\"meta\">2026-11-20 to 2026-11-26 · amounts in EUR · times in Europe/Berlin · as of event 20</p>")] {
            let run = try tool.run(["report", "--out", "\(code).html", "--lang", code])
            #expect(run.status == 0, "\(run.stderr)")
            let html = String(decoding: Scratch.bytes(tool.path("\(code).html")), as: UTF8.self)
            #expect(html.split(separator: "\n").first { $0.hasPrefix("<p class=\"meta\">") } == Substring(meta))
        }
        #expect(try tool.run(["report", "--out", "plain.html"]).status == 0)
        #expect(Scratch.bytes(tool.path("plain.html")) == Scratch.bytes(tool.path("en.html")))
        let wrong = try tool.run(["report", "--out", "fr.html", "--lang", "fr"])
        #expect(wrong.status == 2 && wrong.stdout.isEmpty)
        #expect(wrong.stderr == "shop-replay report: --lang is en or de, not fr\nSee shop-replay report --help\n")
        #expect(!FileManager.default.fileExists(atPath: tool.path("fr.html")))
    }

    @Test func aPeriodAskedForBackwardsIsAUsageErrorAndWritesNothing() throws {
        let tool = try Self.withWeek()
        defer { tool.remove() }
        let journal = Scratch.bytes(tool.path("shop.ndjson"))
        let run = try tool.run(["report", "--out", "back.html", "--from", "2026-11-26", "--to", "2026-11-20"])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "shop-replay report: --from 2026-11-26 00:00 is not before --to's end 2026-11-21 00:00: no purchase could be in that range\nSee shop-replay report --help\n")
        #expect(!FileManager.default.fileExists(atPath: tool.path("back.html")))
        #expect(Scratch.bytes(tool.path("shop.ndjson")) == journal)
        // One whole day is a period.
        #expect(try tool.run(["report", "--out", "day.html", "--from", "2026-11-26", "--to", "2026-11-26"]).status == 0)
    }

    @Test(.enabled(if: ReportBrowserTests.chromium != nil && ReportBrowserTests.python != nil,
                   "skipped: no Chromium (or no python3) on this machine — `apt-get install -y chromium` to render the report in a real browser"))
    func aWeeksCalendarIsNotBlownUpOnADesktop() throws {
        let tool = try Self.withWeek()
        defer { tool.remove() }
        #expect(try tool.run(["report", "--out", "week.html"]).status == 0)
        Scratch.write(Array(ReportBrowserTests.countPixels.utf8), to: tool.path("count.py"))
        for (name, size) in [("desktop", "1280,2400"), ("phone", "390,3600")] {
            let shot = tool.path("\(name).png")
            let run = try tool.run(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
                                    "--window-size=\(size)", "--screenshot=\(shot)", "file://\(tool.path("week.html"))"],
                                   executable: ReportBrowserTests.chromium!)
            #expect(run.status == 0, "\(run.stderr)")
            // The darkest shade (#0b3d6e) is only in the calendar: five shopping days of one purchase and the legend's square,
            // six squares of 19.6 px (about 380 pixels each) at 1.4 times their units. Stretched to the page's width
            // (736 px for 271 units, 2.7 times) they were 38 px, about 8,600 pixels.
            let counted = try tool.run([tool.path("count.py"), shot, "0b3d6e"], executable: ReportBrowserTests.python!)
            let dark = Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(dark.map { (1_500...3_000).contains($0) } == true, "\(name): \(dark.map(String.init) ?? counted.stderr) pixels of the darkest shade")
        }
    }
}
