/// What one event type holds in the journal: its current version and its
/// data fields (key, kind, optional or not, the version that added it, and
/// whether it is the id of the thing the event creates, or an id new to the journal).
///
/// Every type's declaration is in one place, ``EventType/declaration``
/// (`EventDeclarations.swift`). The reader's key table, the current version,
/// the verifier's check that new ids are new and a command's created ids
/// are derived from it; a test holds the codec to it (every declared field
/// written, none other).
///
/// ```swift
/// let purchased = EventType.itemPurchased.declaration
/// print(purchased.version)                               // 2
/// print(purchased.fields(at: 1).map(\.key).contains("store"))   // false: version 2 added it
/// ```
public struct EventDeclaration: Sendable {
    /// What a field's value is in the journal.
    public enum Kind: String, Sendable {
        /// A UUID string.
        case id
        /// An array of UUID strings.
        case ids
        case text
        /// A whole number.
        case number
        /// An array of whole numbers.
        case numbers
        /// `true` or `false`.
        case flag
        /// A decimal with up to three fraction digits (version 1: whole numbers).
        case quantity
        /// A time, `2026-03-01T18:00:00.000Z`.
        case time
        /// `"low"`, `"normal"` or `"high"`.
        case priority
        /// `"owner"`, `"member"` or `"viewer"`.
        case role
        /// `{"red":…,"green":…,"blue":…,"opacity":…}`.
        case color
    }

    /// One key of the event's `data`.
    public struct Field: Hashable, Sendable {
        public var key: String
        public var kind: Kind
        /// Left out when it has no value (read `null` as absent).
        public var isOptional: Bool
        /// The version of the event that added the field.
        public var since: Int
        /// The id of the thing the event creates (what a command's outcome answers as created).
        public var creates: Bool
        /// An id never used before in the journal: the created thing's, or an alias new to it.
        public var isNew: Bool
    }

    public var type: EventType
    /// The version a writer writes, and the newest a reader reads.
    public var version: Int
    /// The fields in the order the writer writes them.
    public var fields: [Field]

    /// The fields a line of `version` has.
    public func fields(at version: Int) -> [Field] { fields.filter { $0.since <= version } }

    /// Where in ``fields`` the id of the thing the event creates is, if it creates one.
    public var createdField: Int? { fields.firstIndex(where: \.creates) }

    /// Where in ``fields`` an id new to the journal is, if the event has one: the verifier checks it was never used.
    public var newIDField: Int? { fields.firstIndex(where: \.isNew) }
}

extension EventDeclaration.Field {
    /// A required field of version 1.
    static func required(_ key: String, _ kind: EventDeclaration.Kind) -> Self {
        Self(key: key, kind: kind, isOptional: false, since: 1, creates: false, isNew: false)
    }

    /// An optional field, added by version `since`.
    static func optional(_ key: String, _ kind: EventDeclaration.Kind, since: Int = 1) -> Self {
        Self(key: key, kind: kind, isOptional: true, since: since, creates: false, isNew: false)
    }

    /// The id of the thing the event creates.
    static func created(_ key: String) -> Self {
        Self(key: key, kind: .id, isOptional: false, since: 1, creates: true, isNew: true)
    }

    /// An optional id new to the journal that names no thing created (an alias).
    static func newAlias(_ key: String) -> Self {
        Self(key: key, kind: .id, isOptional: true, since: 1, creates: false, isNew: true)
    }
}

extension EventType {
    /// Where the type is in `allCases` (its declaration order).
    var ordinal: Int {
        // reason: a no-payload enum's tag is its declaration index (Swift's ABI); a test checks it against allCases.
        Int(unsafeBitCast(self, to: UInt8.self))
    }

    /// This type's declaration: its version and data fields.
    public var declaration: EventDeclaration { EventDeclaration.all[ordinal] }
}

extension EventDeclaration {
    /// Every type's declaration, in `EventType.allCases` order.
    public static let all: [EventDeclaration] = EventType.allCases.map(EventDeclaration.init(declaring:))

    /// The types' current versions by ordinal (the readers' hot path reads one a line).
    static let versions: [Int] = all.map(\.version)

    /// Every key any event's data has, once, in the order first declared.
    public static let allKeys: [String] = {
        var keys: [String] = []
        for declaration in all { for field in declaration.fields where !keys.contains(field.key) { keys.append(field.key) } }
        return keys
    }()
}
