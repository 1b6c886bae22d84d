import Foundation
import Testing
@testable import ShopEvents

/// Version-2 data (docs/JOURNAL.md, "How events change"): writers write each type's
/// current version; a version-1 line is upgraded while it is read, by one
/// function per type and version, and never rewritten; a newer version is
/// refused, never guessed at.
@Suite struct EventVersionTests {
    let list = ListID("0FE45A97-1A14-4BE6-81E1-91E30AFD5672")!, item = ItemID("E976A9E1-0806-4504-99BF-116004C8DED9")!
    let place = LocationID("8D83AF5B-4281-4AD9-8061-09E597156CC4")!, purchase = PurchaseID("00000000-0000-0000-0000-00000000000C")!

    // MARK: Each upgrade alone

    @Test func itemCreatedV1() {
        let old = EventV1.ItemCreated(item: item, name: "Eggs", location: place,
                                      details: EventV1.Details(category: "Dairy", notes: "free range", unitPrice: 279, photo: "eggs.jpg", quantity: 6))
        #expect(old.upgraded() == .itemCreated(item: item, name: "Eggs", location: place,
                                               details: ItemDetails(category: "Dairy", notes: "free range", unitPrice: 279, photo: "eggs.jpg", quantity: 6)))
        #expect(EventV1.ItemCreated(item: item, name: "Eggs", location: place, details: EventV1.Details()).upgraded()
                == .itemCreated(item: item, name: "Eggs", location: place, details: .none))
    }

    @Test func itemDetailsChangedV1() {
        #expect(EventV1.ItemDetailsChanged(item: item, details: EventV1.Details(unitPrice: 99, quantity: 2)).upgraded()
                == .itemDetailsChanged(item: item, details: ItemDetails(unitPrice: 99, quantity: 2)))
    }

    @Test func itemAddedToListV1() {
        #expect(EventV1.ItemAddedToList(list: list, item: item, quantity: 3).upgraded()
                == .itemAddedToList(list: list, item: item, quantity: Quantity(thousandths: 3_000)))
    }

    @Test func listEntryQuantityChangedV1() {
        #expect(EventV1.ListEntryQuantityChanged(list: list, item: item, quantity: 9999).upgraded()
                == .listEntryQuantityChanged(list: list, item: item, quantity: Quantity(thousandths: 9_999_000)))
    }

    @Test func itemPurchasedV1() {
        let time = Timestamp("2026-03-01T09:00:00.250Z")!
        #expect(EventV1.ItemPurchased(purchase: purchase, item: item, list: list, quantity: 2, unitPrice: 119, location: place, purchasedAt: time).upgraded()
                == .itemPurchased(purchase: purchase, item: item, list: list, quantity: 2, unitPrice: 119, location: place, purchasedAt: time))
    }

    @Test func tripStartedV1() {
        let trip = TripID("00000000-0000-0000-0000-0000000000FF")!
        #expect(EventV1.TripStarted(trip: trip, list: list).upgraded() == .tripStarted(trip: trip, list: list, store: nil))
        #expect(EventV1.TripStarted(trip: trip, list: nil).upgraded() == .tripStarted(trip: trip, list: nil, store: nil))
    }

    // MARK: Through the codec

    func line(_ type: String, v: Int, _ data: String) -> [UInt8] {
        Array(("{\"seq\":3,\"id\":\"00000000-0000-0000-0000-00000000000A\",\"type\":\"\(type)\",\"v\":\(v),\"at\":\"2026-03-01T09:00:00.250Z\","
               + "\"actor\":\"ana\",\"command\":\"00000000-0000-0000-0000-00000000000B\",\"data\":\(data),\"prev\":\"\(String(repeating: "0", count: 64))\"}").utf8)
    }

    func read(_ bytes: [UInt8]) throws(CodecError) -> Event { try EventLineCodec.decode(bytes).event }
    func fast(_ bytes: [UInt8]) -> Event? { bytes.withUnsafeBytes { CanonicalLine.decode($0)?.event } }

    @Test func writersWriteEachTypesCurrentVersion() {
        let versions = Dictionary(uniqueKeysWithValues: EventType.allCases.map { ($0, $0.currentVersion) })
        let twos: Set<EventType> = [.itemCreated, .itemDetailsChanged, .itemAddedToList, .listEntryQuantityChanged, .itemPurchased, .tripStarted]
        #expect(versions.filter { $0.value == 2 }.keys.sorted { $0.rawValue < $1.rawValue } == twos.sorted { $0.rawValue < $1.rawValue })
        #expect(versions.values.allSatisfy { $0 == 1 || $0 == 2 })
        let added = RecordedEvent(seq: 1, id: EventID(), at: Timestamp("2026-03-01T09:00:00.250Z")!, actor: "ana", command: CommandID(),
                                  event: .itemAddedToList(list: list, item: item, quantity: Quantity(thousandths: 1_500)), prev: SHA256Digest.zero)
        let text = String(decoding: EventLineCodec.encode(added), as: UTF8.self)
        #expect(text.contains("\"type\":\"ItemAddedToList\",\"v\":2,"))
        #expect(text.contains("\"quantity\":1.5}"))
        var renamed = added
        renamed.event = .itemRenamed(item: item, name: "Milk")
        #expect(String(decoding: EventLineCodec.encode(renamed), as: UTF8.self).contains("\"type\":\"ItemRenamed\",\"v\":1,"))
    }

    /// A version-1 line, as every journal before stores has them, reads
    /// as the upgraded event on both paths; the same data at version 2 reads the same.
    @Test func versionOneLinesAreUpgradedOnBothPaths() throws {
        let l = list.description, i = item.description, p = place.description, u = purchase.description
        let cases: [(String, String, Event)] = [
            ("ItemAddedToList", "{\"list\":\"\(l)\",\"item\":\"\(i)\",\"quantity\":2}", .itemAddedToList(list: list, item: item, quantity: 2)),
            ("ListEntryQuantityChanged", "{\"list\":\"\(l)\",\"item\":\"\(i)\",\"quantity\":12}", .listEntryQuantityChanged(list: list, item: item, quantity: 12)),
            ("ItemPurchased", "{\"purchase\":\"\(u)\",\"item\":\"\(i)\",\"quantity\":1,\"unitPrice\":249,\"location\":\"\(p)\"}",
             .itemPurchased(purchase: purchase, item: item, list: nil, quantity: 1, unitPrice: 249, location: place, purchasedAt: nil)),
            ("ItemCreated", "{\"item\":\"\(i)\",\"name\":\"Eggs\",\"location\":\"\(p)\",\"unitPrice\":279,\"quantity\":6}",
             .itemCreated(item: item, name: "Eggs", location: place, details: ItemDetails(unitPrice: 279, quantity: 6))),
            ("ItemDetailsChanged", "{\"item\":\"\(i)\",\"category\":\"Dairy\"}", .itemDetailsChanged(item: item, details: ItemDetails(category: "Dairy"))),
        ]
        for (type, data, event) in cases {
            for v in [1, 2] {
                #expect(try read(line(type, v: v, data)) == event, "\(type) v\(v)")
                #expect(fast(line(type, v: v, data)) == event, "\(type) v\(v)")
            }
        }
    }

    /// Version 1's quantities are whole numbers: a fraction there is damage, not a decimal.
    @Test func aVersionOneQuantityWithAFractionIsRefused() {
        let l = list.description, i = item.description
        for quantity in ["1.5", "2.0", "0.001"] {
            let bytes = line("ItemAddedToList", v: 1, "{\"list\":\"\(l)\",\"item\":\"\(i)\",\"quantity\":\(quantity)}")
            #expect(fast(bytes) == nil)
            #expect(throws: CodecError.self) { try read(bytes) }
            do { _ = try read(bytes) } catch { #expect(error.reason == .invalidField && error.message.contains("version 1 has whole quantities only"), "\(error)") }
            let two = line("ItemAddedToList", v: 2, "{\"list\":\"\(l)\",\"item\":\"\(i)\",\"quantity\":\(quantity)}")
            #expect((try? read(two)) == .itemAddedToList(list: list, item: item, quantity: Quantity(quantity)!))
        }
    }

    /// A version newer than this build's is refused with `unsupported_version`, whichever path reads it.
    @Test func aNewerVersionIsRefusedNotGuessed() {
        let l = list.description, i = item.description
        for (type, v) in [("ItemAddedToList", 3), ("ItemRenamed", 2), ("TripEnded", 9)] {
            let bytes = line(type, v: v, type == "ItemAddedToList" ? "{\"list\":\"\(l)\",\"item\":\"\(i)\",\"quantity\":1}" : "{\"item\":\"\(i)\",\"name\":\"x\",\"trip\":\"\(i)\"}")
            #expect(fast(bytes) == nil)
            do {
                _ = try read(bytes)
                Issue.record("\(type) v\(v) was read")
            } catch {
                #expect(error.reason == .unsupportedVersion && error.message.contains("written by a newer ShopEvents"), "\(error)")
            }
        }
    }

    /// An event alone (`Codable`, `apply`'s events) names its version too, and takes an older one.
    @Test func anEventAloneCarriesItsVersion() throws {
        let event = Event.itemAddedToList(list: list, item: item, quantity: Quantity(thousandths: 250))
        let text = String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
        let object = try JSONValue.parse(Array(text.utf8))
        #expect(object["type"] == "ItemAddedToList" && object["v"] == 2 && object["data"]?["quantity"] == .double(0.25), "\(text)")
        #expect(try JSONDecoder().decode(Event.self, from: Data(text.utf8)) == event)
        let old = "{\"type\":\"ItemAddedToList\",\"v\":1,\"data\":{\"list\":\"\(list)\",\"item\":\"\(item)\",\"quantity\":4}}"
        #expect(try JSONDecoder().decode(Event.self, from: Data(old.utf8)) == .itemAddedToList(list: list, item: item, quantity: 4))
        let newer = "{\"type\":\"ItemAddedToList\",\"v\":3,\"data\":{\"list\":\"\(list)\",\"item\":\"\(item)\",\"quantity\":4}}"
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Event.self, from: Data(newer.utf8)) }
    }
}
