import Foundation

/// A ShoppingList17 archive: a JSON array of locations with nested items, as
/// the iOS app exports it.
///
/// ```swift
/// let archive = try SL17Archive.parse(Array(try Data(contentsOf: url)))
/// print(archive.locations.count, archive.locations.flatMap(\.items).count)
/// ```
public struct SL17Archive: Hashable, Sendable {
    /// A location of the archive with its items.
    public struct Location: Hashable, Sendable {
        public var id: LocationID
        public var name: String
        /// Smaller first; 2147483647 marks the Unknown Location.
        public var visitationOrder: Int
        public var color: Color
        public var items: [Item]

        public init(id: LocationID, name: String, visitationOrder: Int, color: Color, items: [Item]) {
            self.id = id; self.name = name; self.visitationOrder = visitationOrder; self.color = color; self.items = items
        }
    }

    /// An item of the archive.
    public struct Item: Hashable, Sendable {
        public var id: ItemID
        public var name: String
        public var onList: Bool
        public var isAvailable: Bool
        public var quantity: Int
        public var dateLastPurchased: Timestamp?

        public init(id: ItemID, name: String, onList: Bool, isAvailable: Bool, quantity: Int, dateLastPurchased: Timestamp?) {
            self.id = id; self.name = name; self.onList = onList; self.isAvailable = isAvailable
            self.quantity = quantity; self.dateLastPurchased = dateLastPurchased
        }
    }

    /// The `visitationOrder` of the Unknown Location.
    public static let unknownVisitationOrder = 2_147_483_647

    public var locations: [Location]

    public init(locations: [Location]) { self.locations = locations }

    /// Reads an archive; anything that is not one is refused with the path of the fault.
    public static func parse(_ bytes: [UInt8]) throws(SL17Error) -> SL17Archive {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch {
            throw SL17Error("the file is not JSON: \(error.message)")
        }
        guard let array = root.arrayValue else {
            throw SL17Error("an archive is a JSON array of locations, but the file holds \(root.kindName)")
        }
        var locations: [Location] = []
        for (index, value) in array.enumerated() {
            locations.append(try location(value, path: "[\(index)]"))
        }
        return SL17Archive(locations: locations)
    }

    private static func location(_ value: JSONValue, path: String) throws(SL17Error) -> Location {
        let fields = try Fields(value, path: path)
        var items: [Item] = []
        for (index, item) in try fields.array("items").enumerated() {
            items.append(try Self.item(item, path: "\(path).items[\(index)]"))
        }
        return Location(id: try fields.id("id"), name: try fields.string("name"),
                        visitationOrder: try fields.int("visitationOrder"),
                        color: Color(red: try fields.double("red"), green: try fields.double("green"),
                                     blue: try fields.double("blue"), opacity: try fields.double("opacity")),
                        items: items)
    }

    private static func item(_ value: JSONValue, path: String) throws(SL17Error) -> Item {
        let fields = try Fields(value, path: path)
        return Item(id: try fields.id("id"), name: try fields.string("name"), onList: try fields.bool("onList"),
                    isAvailable: try fields.bool("isAvailable"), quantity: try fields.int("quantity"),
                    dateLastPurchased: try fields.date("dateLastPurchased"))
    }

    /// The archive as the app writes it: indented JSON.
    public func encoded() -> [UInt8] {
        let value = JSONValue.array(locations.map { location in
            .object([
                ("id", .string(location.id.description)), ("name", .string(location.name)),
                ("visitationOrder", .int(location.visitationOrder)),
                ("red", .double(location.color.red)), ("green", .double(location.color.green)),
                ("blue", .double(location.color.blue)), ("opacity", .double(location.color.opacity)),
                ("items", .array(location.items.map { item in
                    var pairs: [(String, JSONValue)] = [
                        ("id", .string(item.id.description)), ("name", .string(item.name)), ("onList", .bool(item.onList)),
                        ("isAvailable", .bool(item.isAvailable)), ("quantity", .int(item.quantity)),
                    ]
                    if let date = item.dateLastPurchased { pairs.append(("dateLastPurchased", .string(SL17Archive.format(date)))) }
                    return .object(pairs)
                })),
            ])
        })
        return Array((value.text(pretty: true) + "\n").utf8)
    }

    static func format(_ time: Timestamp) -> String {
        let formatter = ISO8601DateFormatter()
        if time.millisecondsSince1970 % 1000 != 0 { formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds] }
        return formatter.string(from: time.date)
    }

    static func parseDate(_ text: String) -> Timestamp? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return Timestamp(date) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map(Timestamp.init)
    }

    /// Typed access to one object's keys, with the path in every error.
    private struct Fields {
        let value: JSONValue
        let path: String

        init(_ value: JSONValue, path: String) throws(SL17Error) {
            guard case .object = value else { throw SL17Error("\(path) should be an object, not \(value.kindName)") }
            self.value = value
            self.path = path
        }

        func field(_ key: String) throws(SL17Error) -> JSONValue {
            guard let found = value[key], found != .null else { throw SL17Error("\(path) has no \"\(key)\"") }
            return found
        }

        func string(_ key: String) throws(SL17Error) -> String {
            guard let text = try field(key).stringValue else { throw SL17Error("\(path).\(key) should be a string") }
            return text
        }

        func id<Kind>(_ key: String) throws(SL17Error) -> EntityID<Kind> {
            let text = try string(key)
            guard let id = EntityID<Kind>(text) else { throw SL17Error("\(path).\(key) \"\(text)\" is not a UUID") }
            return id
        }

        func int(_ key: String) throws(SL17Error) -> Int {
            let found = try field(key)
            if let number = found.intValue { return number }
            if let number = found.doubleValue, number.rounded() == number, abs(number) < 1e15 { return Int(number) }
            throw SL17Error("\(path).\(key) should be a whole number")
        }

        func double(_ key: String) throws(SL17Error) -> Double {
            guard let number = try field(key).doubleValue else { throw SL17Error("\(path).\(key) should be a number") }
            return number
        }

        func bool(_ key: String) throws(SL17Error) -> Bool {
            guard let flag = try field(key).boolValue else { throw SL17Error("\(path).\(key) should be true or false") }
            return flag
        }

        func array(_ key: String) throws(SL17Error) -> [JSONValue] {
            guard let elements = try field(key).arrayValue else { throw SL17Error("\(path).\(key) should be an array") }
            return elements
        }

        func date(_ key: String) throws(SL17Error) -> Timestamp? {
            guard let found = value[key], found != .null else { return nil }
            guard let text = found.stringValue, let time = SL17Archive.parseDate(text) else {
                throw SL17Error("\(path).\(key) should be an ISO 8601 date such as 2024-05-01T17:30:00Z")
            }
            return time
        }
    }
}

/// Why a file is not a ShoppingList17 archive.
public struct SL17Error: ShopError, Hashable {
    public var message: String
    public var code: String { "invalid_archive" }
    public init(_ message: String) { self.message = message }
}

extension JSONValue {
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
