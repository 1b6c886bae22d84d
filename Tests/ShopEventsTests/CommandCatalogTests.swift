import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// The catalog that `apply --help` prints is the codec's truth: every field
/// it lists is accepted, every field it marks required is required, and no
/// field is missing from it.
@Suite struct CommandCatalogTests {
    static let samples: [String: String] = [
        "household": #""00000000-0000-0000-0000-000000000001""#, "location": #""00000000-0000-0000-0000-000000000001""#,
        "item": #""00000000-0000-0000-0000-000000000001""#, "list": #""00000000-0000-0000-0000-000000000001""#,
        "purchase": #""00000000-0000-0000-0000-000000000001""#, "trip": #""00000000-0000-0000-0000-000000000001""#,
        "order": #"["00000000-0000-0000-0000-000000000001"]"#,
        "name": #""x""#, "category": #""x""#, "notes": #""x""#, "photo": #""x""#,
        "currency": #""EUR""#, "timeZone": #""UTC""#, "color": #"{"red":0,"green":0,"blue":0,"opacity":1}"#,
        "quantity": "1", "unitPrice": "1", "priority": #""high""#, "available": "true",
        "purchasedAt": #""2026-01-01T00:00:00.000Z""#, "member": #""ben""#, "role": #""viewer""#,
        "positions": "[3]", "unknownAlias": #""00000000-0000-0000-0000-0000000000AB""#,
        "store": #""00000000-0000-0000-0000-0000000000C1""#, "unit": #""kg""#, "barcode": #""4006381333931""#,
    ]

    static func sample(_ field: String) -> String {
        guard let value = samples[field] else {
            Issue.record("no sample for \(field)")
            return "null"
        }
        return value
    }

    static func line(_ type: CommandType, _ fields: [String]) -> [UInt8] {
        let data = fields.map { #""\#($0)":\#(sample($0))"# }.joined(separator: ",")
        return Array(#"{"type":"\#(type.rawValue)","data":{\#(data)}}"#.utf8)
    }

    @Test(arguments: CommandType.allCases)
    func everyListedFieldIsAcceptedAndEveryRequiredOneRequired(_ type: CommandType) throws {
        let all = CommandCatalog.fields(of: type)
        let names = all.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "?")) }
        let required = all.filter { !$0.hasSuffix("?") }
        let full = try CommandCodec.decode(Self.line(type, names), ids: .sequential())
        #expect(full.command.typeName == type.rawValue)
        // The codec writes exactly the listed fields, in the listed order, when all are given.
        let written = try JSONValue.parse(CommandCodec.encode(full))["data"]?.objectKeys
        #expect(written == names)
        _ = try CommandCodec.decode(Self.line(type, required), ids: .sequential())
        for field in required {
            #expect(throws: CodecError.self, "\(type.rawValue) without \(field)") {
                _ = try CommandCodec.decode(Self.line(type, required.filter { $0 != field }), ids: .sequential())
            }
        }
    }

    @Test func namesAreResolvedOnlyWhereTheyReferToSomething() throws {
        var state = ShopState.initial
        let events: [Event] = [
            .householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"),
            .locationCreated(location: id(0x50), name: "Dairy", position: 1, color: .grey),
            .itemCreated(item: id(1), name: "Milk", location: id(0x50), details: .none),
            .listCreated(list: id(0x10), name: "Weekly", priority: .high),
        ]
        for (n, event) in events.enumerated() {
            state.apply(RecordedEvent(seq: n + 1, id: id(0xE0 + n), at: TestClock.start, actor: "ana", command: id(0xC0 + n), event: event, prev: .zero))
        }
        let add = Array(#"{"type":"AddItemToList","data":{"list":" weekly ","item":"MILK"}}"#.utf8)
        #expect(CommandCatalog.usesNames(add))
        let resolved = try CommandCodec.decode(try CommandCatalog.resolvingNames(in: add, state: state), ids: .sequential())
        #expect(resolved.command == .addItemToList(list: id(0x10), item: id(1), quantity: nil))
        // The id of a thing being created is not a reference: left for the codec to refuse.
        let create = Array(#"{"type":"CreateItem","data":{"item":"Milk","name":"Tea","location":"dairy"}}"#.utf8)
        let createResolved = try CommandCatalog.resolvingNames(in: create, state: state)
        #expect(throws: CodecError.self) { _ = try CommandCodec.decode(createResolved, ids: .sequential()) }
        #expect(String(decoding: createResolved, as: UTF8.self).contains("00000000-0000-0000-0000-000000000050"))
        // Unknown names are rejected like unknown ids.
        for (line, code) in [(#"{"type":"DeleteItem","data":{"item":"Caviar"}}"#, "unknown_item"),
                             (#"{"type":"DeleteList","data":{"list":"Party"}}"#, "unknown_list"),
                             (#"{"type":"DeleteLocation","data":{"location":"Bakery"}}"#, "unknown_location"),
                             (#"{"type":"ReorderLocations","data":{"order":["Dairy","Bakery"]}}"#, "unknown_location")] {
            #expect(rejectionCode { _ = try CommandCatalog.resolvingNames(in: Array(line.utf8), state: state) } == code)
        }
        // A line of ids only comes back byte for byte.
        let ids = Array(#"{"type":"DeleteItem","data":{"item":"00000000-0000-0000-0000-000000000001"}}"#.utf8)
        #expect(!CommandCatalog.usesNames(ids))
        #expect(try CommandCatalog.resolvingNames(in: ids, state: state) == ids)
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    var objectKeys: [String]? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.map(\.0)
    }
}
