import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// The read path's fast path (``CanonicalLine``) against the general reader:
/// it must read every line the writer writes, read it as the general reader
/// does, and leave to the general reader every line it is not sure of.
@Suite struct CanonicalLineTests {
    static func general(_ line: [UInt8]) -> Result<RecordedEvent, CodecError> {
        line.withUnsafeBytes { raw in
            var newer: NewerEventLine?
            return Result { () throws(CodecError) in try EventLineCodec.decodeGeneral(raw, newer: &newer) }
        }
    }

    static func fast(_ line: [UInt8]) -> RecordedEvent? {
        line.withUnsafeBytes { CanonicalLine.decode($0) }
    }

    /// One event of every type with the values an app writes (plain names,
    /// small positive numbers), each optional field both there and not.
    static func plainEvents() -> [Event] {
        let item = ItemID("E976A9E1-0806-4504-99BF-116004C8DED9")!, list = ListID("0fe45a97-1a14-4be6-81e1-91e30afd5672")!
        let place = LocationID("8D83AF5B-4281-4AD9-8061-09E597156CC4")!, trip = TripID("00000000-0000-0000-0000-0000000000FF")!
        let purchase = PurchaseID("00000000-0000-0000-0000-00000000000C")!, time = Timestamp("2026-03-01T09:00:00.250Z")!
        let color = Color(red: 0.5, green: 0.25, blue: 1, opacity: 1)
        let full = ItemDetails(category: "Dairy", notes: "the blue one", unitPrice: 119, photo: "milk.jpg")
        let someDetails = ItemDetails(category: nil, notes: "ünïcödé 🛒", unitPrice: 0, photo: nil)
        return [
            .householdCreated(household: HouseholdID("00000000-0000-0000-0000-000000000001")!, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"),
            .locationCreated(location: place, name: "Dairy", position: 3, color: color),
            .locationRenamed(location: place, name: "Milk & cheese"), .locationRecolored(location: place, color: color),
            .locationsReordered(order: [place, LocationID("00000000-0000-0000-0000-000000000002")!]), .locationsReordered(order: []),
            .locationsReordered(order: [place]), .locationDeleted(location: place),
            .itemCreated(item: item, name: "Milk", location: place, details: full),
            .itemCreated(item: item, name: "Milk", location: place, details: .none),
            .itemCreated(item: item, name: "", location: place, details: someDetails),
            .itemRenamed(item: item, name: "Oat milk"), .itemDetailsChanged(item: item, details: full),
            .itemDetailsChanged(item: item, details: .none), .itemDetailsChanged(item: item, details: someDetails),
            .itemRelocated(item: item, location: place), .itemAvailabilityChanged(item: item, available: true),
            .itemAvailabilityChanged(item: item, available: false), .itemDeleted(item: item),
            .listCreated(list: list, name: "Weekly", priority: .high), .listRenamed(list: list, name: "Weekend"),
            .listPriorityChanged(list: list, priority: .low), .listDeleted(list: list), .listRestored(list: list), .listPurged(list: list),
            .itemAddedToList(list: list, item: item, quantity: 2), .listEntryQuantityChanged(list: list, item: item, quantity: 10),
            .itemRemovedFromList(list: list, item: item), .listReordered(list: list, order: [item]),
            .listReordered(list: list, order: []), .listReordered(list: list, order: [item, ItemID("00000000-0000-0000-0000-0000000000A1")!, item]),
            .itemPurchased(purchase: purchase, item: item, list: list, quantity: 2, unitPrice: 119, location: place, purchasedAt: time),
            .itemPurchased(purchase: purchase, item: item, list: nil, quantity: 1, unitPrice: nil, location: place, purchasedAt: nil),
            .itemPurchased(purchase: purchase, item: item, list: nil, quantity: Quantity(thousandths: 999_999_999_999_999_999), unitPrice: 0, location: place, purchasedAt: nil),
            .itemPurchased(purchase: purchase, item: item, list: list, quantity: Quantity(thousandths: 1_500), unitPrice: 199, location: place, purchasedAt: nil),
            .itemAddedToList(list: list, item: item, quantity: Quantity(thousandths: 125)),
            .listEntryQuantityChanged(list: list, item: item, quantity: Quantity(thousandths: 9_999_990)),
            .itemCreated(item: item, name: "Flour", location: place, details: ItemDetails(unitPrice: 89, quantity: Quantity(thousandths: 2_250))),
            .itemCreated(item: item, name: "Flour", location: place, details: ItemDetails(unitPrice: 89, unit: "kg", barcode: "4006381333931")),
            .itemDetailsChanged(item: item, details: ItemDetails(unit: "l")), .itemDetailsChanged(item: item, details: ItemDetails(barcode: "96385074")),
            .purchaseReverted(purchase: purchase), .boughtEntriesCleared(list: list),
            .tripStarted(trip: trip, list: list), .tripStarted(trip: trip, list: nil),
            .tripPaused(trip: trip), .tripResumed(trip: trip), .tripEnded(trip: trip),
            .memberAdded(member: "ana", role: .owner), .memberRoleChanged(member: "ana", role: .viewer), .memberRemoved(member: "ana"),
            .listEntryAssigned(list: list, item: item, member: "ben"), .listEntryAssigned(list: list, item: item, member: nil),
            .storeCreated(store: StoreID("00000000-0000-0000-0000-0000000000C1")!, name: "Corner shop"),
            .storeRenamed(store: StoreID("00000000-0000-0000-0000-0000000000C1")!, name: "Market"), .storeDeleted(store: StoreID("00000000-0000-0000-0000-0000000000C1")!),
            .storeLocationsReordered(store: StoreID("00000000-0000-0000-0000-0000000000C1")!, order: [place]),
            .tripStarted(trip: trip, list: list, store: StoreID("00000000-0000-0000-0000-0000000000C1")!),
            .itemPurchased(purchase: purchase, item: item, list: list, quantity: 2, unitPrice: 119, location: place, purchasedAt: time,
                           store: StoreID("00000000-0000-0000-0000-0000000000C1")!),
        ]
    }

    static func recorded(_ event: Event, seq: Int = 7, actor: String = "ana", device: String? = nil, commandEvents: Int? = nil,
                         correlation: CorrelationID? = nil) -> RecordedEvent {
        RecordedEvent(seq: seq, id: EventID("00000000-0000-0000-0000-00000000000A")!, at: Timestamp("2026-03-01T09:00:00.250Z")!,
                      actor: actor, device: device, command: CommandID("00000000-0000-0000-0000-00000000000B")!,
                      commandEvents: commandEvents, correlation: correlation, event: event, prev: SHA256.hash(Array("line 6".utf8)))
    }

    @Test func readsEveryTypeAsTheWriterWritesIt() throws {
        let envelopes: [(Event) -> RecordedEvent] = [
            { Self.recorded($0) },
            { Self.recorded($0, seq: 1, actor: String(repeating: "é", count: 50), device: "ana's phone", commandEvents: 2,
                            correlation: CorrelationID("00000000-0000-0000-0000-00000000000D")!) },
            { Self.recorded($0, seq: 999_999_999_999_999_999, actor: String(repeating: "x", count: 100), device: "") },
        ]
        var types = Set<EventType>()
        for event in Self.plainEvents() {
            for envelope in envelopes {
                let original = envelope(event)
                let line = EventLineCodec.encode(original)
                #expect(Self.fast(line) == original, "\(String(decoding: line, as: UTF8.self))")
                #expect(try Self.general(line).get() == original)
                types.insert(event.kind)
            }
        }
        #expect(types == Set(EventType.allCases))
    }

    /// What the fast path leaves to the general reader, each case read there
    /// the same (or refused there, with the general reader's error).
    @Test func leavesEveryOtherSpellingToTheGeneralReader() throws {
        let purchase = Self.plainEvents().first { if case .itemPurchased(_, _, _?, 2, _, _, _, _) = $0 { true } else { false } }!
        let original = Self.recorded(purchase)
        let line = String(decoding: EventLineCodec.encode(original), as: UTF8.self)
        func variant(_ old: String, _ new: String) -> [UInt8] {
            #expect(line.contains(old), "\(old)")
            return Array(line.replacingOccurrences(of: old, with: new).utf8)
        }
        let readTheSame = [
            variant("{\"seq\"", "{ \"seq\""), variant("\"seq\":7", "\"seq\": 7"), variant("\"actor\":\"ana\"", "\"actor\":\"\\u0061na\""),
            variant("\"v\":2,", "\"v\":2,\"device\":null,"), variant("\"list\":", "\"extra\":[],\"list\":"),
            variant("00000000-0000-0000-0000-00000000000A", "00000000-0000-0000-0000-00000000000a"),
            variant("},\"prev\"", ",\"later\":null},\"prev\""), Array((line + " ").utf8),
            variant("\"type\":\"ItemPurchased\",\"v\":2", "\"v\":2,\"type\":\"ItemPurchased\""),
            // Version 1, as every journal before stores: upgraded to the same event.
            variant("\"v\":2", "\"v\":1"), variant("\"quantity\":2", "\"quantity\":2.000"),
        ]
        for (n, bytes) in readTheSame.enumerated() {
            let general = try Self.general(bytes).get()
            #expect(general.event == original.event && general.seq == original.seq, "case \(n)")
            if let fast = Self.fast(bytes) { #expect(fast == general, "case \(n)") }
        }
        let left = [
            variant("{\"seq\"", "{ \"seq\""), variant("\"quantity\":2", "\"quantity\":-2"), variant("\"quantity\":2", "\"quantity\":02"),
            variant("\"quantity\":2", "\"quantity\":2.0"), variant("\"v\":2", "\"v\":3"), variant("\"seq\":7", "\"seq\":0"),
            variant("\"quantity\":2", "\"quantity\":2.1234"), variant("\"quantity\":2", "\"quantity\":2e0"),
            variant("\"seq\":7", "\"seq\":9223372036854775807"), variant("\"actor\":\"ana\"", "\"actor\":\"\""),
            variant("\"list\":", "\"list\":null,\"x\":"), variant("ItemPurchased", "ItemPurchasedLater"),
            variant("},\"prev\"", ",\"quantity\":3},\"prev\""), Array((line + " ").utf8),
        ]
        for (n, bytes) in left.enumerated() {
            #expect(Self.fast(bytes) == nil, "case \(n): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Lines changed a byte at a time — a byte replaced, inserted or taken
    /// out — must never read differently on the fast path: it either reads
    /// what the general reader reads or leaves the line to it.
    @Test func aChangedLineNeverReadsDifferently() {
        var generator = RandomEvents(seed: 44)
        var rng = SplitMix64(seed: 44)
        let alphabet = Array("\"\\,:{}[] 0129-+.eEaAfFnulltrux\u{7F}".utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        var mutated = 0, fastTaken = 0
        let plain = Self.plainEvents()
        for n in 0..<1_500 {
            let original = n.isMultiple(of: 2) ? generator.recorded() : Self.recorded(plain[n / 2 % plain.count])
            let line = EventLineCodec.encode(original)
            for _ in 0..<24 {
                var bytes = line
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                let byte = alphabet.randomElement(using: &rng)!
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                default: bytes.remove(at: at)
                }
                mutated += 1
                guard let fast = Self.fast(bytes) else { continue }
                fastTaken += 1
                switch Self.general(bytes) {
                case let .success(general): #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self))")
                case let .failure(error): Issue.record("the fast path read a line the general reader refuses (\(error)): \(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
        // Some changes leave a line the writer could have written (a digit for a digit): the fast path must have been taken.
        #expect(fastTaken > 200 && fastTaken < mutated / 2, "\(fastTaken) of \(mutated)")
    }

    /// Every type is found by its name (``EventType/named(_:)``, by way of
    /// the names of its length), and no name one byte off (a letter's case
    /// changed, cut short or made longer) finds one.
    @Test func everyTypeIsFoundByItsNameAndNoOther() {
        func named(_ bytes: [UInt8]) -> EventType? { bytes.withUnsafeBufferPointer { EventType.named($0) } }
        let names = Set(EventType.allCases.map(\.rawValue))
        for type in EventType.allCases {
            let name = Array(type.rawValue.utf8)
            #expect(named(name) == type)
            for at in name.indices {
                var changed = name
                changed[at] ^= 0x20
                #expect(names.contains(String(decoding: changed, as: UTF8.self)) || named(changed) == nil, "\(changed)")
            }
            #expect(named(Array(name.dropLast())) == nil || names.contains(String(type.rawValue.dropLast())))
            #expect(named(name + [UInt8(ascii: "s")]) == nil)
        }
        #expect(named([]) == nil)
    }

    @Test func randomHistoriesReadTheSameBothWays() throws {
        var generator = RandomEvents(seed: 45)
        for _ in 0..<5_000 {
            let line = EventLineCodec.encode(generator.recorded())
            let general = try Self.general(line).get()
            if let fast = Self.fast(line) { #expect(fast == general) }
        }
    }
}
