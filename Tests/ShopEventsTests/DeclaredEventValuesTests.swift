import Foundation
import Testing
@testable import ShopEvents

/// Issue 50, item 3: readers and views outside the codec work from the
/// declarations: `Event(_:version:values:)` (the bench's Foundation peer),
/// `Event.id(forKey:)`, `text(forKey:)` and `ids` (history, summaries).
@Suite struct DeclaredEventValuesTests {
    /// Every sample event, its fields given as values by key, is made again the same.
    @Test(arguments: EventType.allCases)
    func anEventIsMadeFromItsValuesByKey(_ type: EventType) throws {
        for full in [true, false] {
            let event = EventDeclarationTests.sample(type, full: full)
            var values = ValueCollector()
            event.visitFields(&values)
            #expect(try Event(type, version: type.currentVersion, values: values.values) == event)
        }
    }

    @Test func anOlderVersionIsUpgradedAndAMissingOrWrongValueRefused() throws {
        let list = ListID(EventDeclarationTests.a), item = ItemID(EventDeclarationTests.b)
        let old = try Event(.itemAddedToList, version: 1, values: ["list": .id(list.uuid), "item": .id(item.uuid), "quantity": .quantity(Quantity(2))])
        #expect(old == .itemAddedToList(list: list, item: item, quantity: Quantity(2)))
        #expect(throws: CodecError.self) {
            try Event(.itemAddedToList, version: 1, values: ["list": .id(list.uuid), "item": .id(item.uuid), "quantity": .quantity(Quantity(thousandths: 1500))])
        }
        let missing = #expect(throws: CodecError.self) { try Event(.itemRenamed, version: 1, values: ["item": .id(item.uuid)]) }
        #expect(missing?.reason == .missingField)
        let wrong = #expect(throws: CodecError.self) { try Event(.itemRenamed, version: 1, values: ["item": .text("Milk"), "name": .text("Milk")]) }
        #expect(wrong?.reason == .invalidField)
        let newer = #expect(throws: CodecError.self) { try Event(.itemRenamed, version: 2, values: ["item": .id(item.uuid), "name": .text("Milk")]) }
        #expect(newer?.reason == .unsupportedVersion)
    }

    @Test func theFieldsOfAnEventAreFoundByKey() {
        let (a, b, c) = (EventDeclarationTests.a, EventDeclarationTests.b, EventDeclarationTests.c)
        let bought = EventDeclarationTests.sample(.itemPurchased, full: true)
        #expect(bought.id(forKey: "item") == b)
        #expect(bought.id(forKey: "list") == c)
        #expect(bought.id(forKey: "trip") == nil)
        #expect(bought.ids.map(\.key) == ["purchase", "item", "list", "location", "store"])
        #expect(bought.ids.map(\.id) == [a, b, c, c, b])
        #expect(EventDeclarationTests.sample(.itemPurchased, full: false).id(forKey: "list") == nil)
        #expect(EventDeclarationTests.sample(.listEntryAssigned, full: true).text(forKey: "member") == "ben")
        #expect(EventDeclarationTests.sample(.listEntryAssigned, full: false).text(forKey: "member") == nil)
        #expect(EventDeclarationTests.sample(.memberRemoved, full: true).text(forKey: "member") == "ben")
        #expect(EventDeclarationTests.sample(.listReordered, full: true).ids.map(\.key) == ["list"])   // an order is not one id
    }
}

/// An event's fields as values by key, as another reader would give them.
private struct ValueCollector: EventFieldVisitor {
    var values: [String: EventDeclaration.Value] = [:]
    mutating func put(_ name: StaticString, _ value: EventDeclaration.Value?) { if let value { values[name.description] = value } }
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>) { put(name, .id(value.uuid)) }
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>?) { put(name, value.map { .id($0.uuid) }) }
    mutating func field(_ name: StaticString, _ value: String) { put(name, .text(value)) }
    mutating func field(_ name: StaticString, _ value: String?) { put(name, value.map { .text($0) }) }
    mutating func field(_ name: StaticString, _ value: Int) { put(name, .number(value)) }
    mutating func field(_ name: StaticString, _ value: Int?) { put(name, value.map { .number($0) }) }
    mutating func field(_ name: StaticString, _ value: Bool) { put(name, .flag(value)) }
    mutating func field(_ name: StaticString, _ value: Quantity) { put(name, .quantity(value)) }
    mutating func field(_ name: StaticString, _ value: Quantity?) { put(name, value.map { .quantity($0) }) }
    mutating func field(_ name: StaticString, _ value: Timestamp?) { put(name, value.map { .time($0) }) }
    mutating func field(_ name: StaticString, _ value: Priority) { put(name, .priority(value)) }
    mutating func field(_ name: StaticString, _ value: Role) { put(name, .role(value)) }
    mutating func field(_ name: StaticString, _ value: Color) { put(name, .color(value)) }
    mutating func field<Kind>(_ name: StaticString, _ value: [EntityID<Kind>]) { put(name, .ids(value.map(\.uuid))) }
    mutating func field(_ name: StaticString, _ value: [Int]?) { put(name, value.map { .numbers($0) }) }
}
