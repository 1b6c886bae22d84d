import Foundation

/// What one command type is, said once (`CommandDeclarations.swift`): the
/// event that ends it, who may issue it, and its data fields — the fields are
/// those its reader (``Command/read(_:from:ids:household:)``) asks for, in that
/// order, so that the codec, `apply --help`'s list and this table cannot
/// disagree. A test holds the writer (``Command/visitFields(_:)``) to the same
/// fields and order.
struct CommandDeclaration: Sendable {
    /// Who in a household with members may issue the command (docs/COMMANDS.md, "Members and roles").
    /// An owner may issue every command and a viewer none.
    enum Issuer: Equatable, Sendable {
        /// Every member.
        case member
        /// Owners only; `why` is what a member is told.
        case owner(why: String)
        /// Owners, and a member naming itself (`RemoveMember`: leaving).
        case ownerOrItself
    }

    /// One data field: its key and whether it may be left out (an id of a
    /// thing being created may: a new one is made).
    struct Field: Hashable, Sendable {
        var key: String
        var isOptional: Bool

        /// As `apply --help` lists it: `item`, or `item?` when optional.
        var listed: String { isOptional ? key + "?" : key }
    }

    var type: CommandType
    /// The command's last event is of this type (``CommandType/init(endingWith:)``).
    var makes: EventType
    var issuer: Issuer
    /// The data fields, in the order the reader reads and the writer writes them.
    var fields: [Field]

    init(_ type: CommandType, makes: EventType, issuer: Issuer = .member) {
        self.type = type
        self.makes = makes
        self.issuer = issuer
        var recorder = FieldRecorder()
        _ = Command.read(type, from: &recorder, ids: IDGenerator { FieldRecorder.zero }, household: nil)
        fields = recorder.fields
    }
}

extension CommandType {
    /// Where the type is in `allCases` (its declaration order).
    var ordinal: Int {
        // reason: a no-payload enum's tag is its declaration index (Swift's ABI); a test checks it against allCases.
        Int(unsafeBitCast(self, to: UInt8.self))
    }

    /// This type's declaration: the event that ends it, who may issue it, its fields.
    var declaration: CommandDeclaration { CommandDeclaration.all[ordinal] }

    /// The command type whose events end with an event of `kind`. Each
    /// command's last event is its own — `DeleteItem` ends with `ItemDeleted`
    /// after its `ItemRemovedFromList`s, `DeleteLocation` with
    /// `LocationDeleted`, `AddMember` with the member's `MemberAdded` — so a
    /// journal, which records events and not commands, knows from the last
    /// event of a command id which command it was (`id_reused`). Declared with
    /// each command (``CommandDeclaration/makes``).
    ///
    /// ```swift
    /// print(CommandType(endingWith: .itemDeleted))   // deleteItem
    /// ```
    public init(endingWith kind: EventType) {
        self = CommandDeclaration.endingWith[kind.ordinal]
    }
}

extension CommandDeclaration {
    /// Every type's declaration, in `CommandType.allCases` order.
    static let all: [CommandDeclaration] = CommandType.allCases.map(CommandDeclaration.init(declaring:))

    /// The command type each event type ends, by the event type's ordinal.
    static let endingWith: [CommandType] = EventType.allCases.map { kind in
        guard let declaration = all.first(where: { $0.makes == kind }) else {
            preconditionFailure("no command is declared to make \(kind.rawValue): give one `makes: .\(kind)` in CommandDeclarations.swift")
        }
        return declaration.type
    }
}

/// Reads a command's data field by field, as ``Command/read(_:from:ids:household:)``
/// asks for it: the JSON codec's `DataFields` is one reader, the declaration's
/// ``FieldRecorder`` another.
protocol CommandDataReader {
    associatedtype Failure: Error
    mutating func id<Kind>(_ name: StaticString) throws(Failure) -> EntityID<Kind>
    mutating func optionalID<Kind>(_ name: StaticString) throws(Failure) -> EntityID<Kind>?
    mutating func ids<Kind>(_ name: StaticString) throws(Failure) -> [EntityID<Kind>]
    mutating func optionalInts(_ name: StaticString) throws(Failure) -> [Int]?
    mutating func string(_ name: StaticString) throws(Failure) -> String
    mutating func optionalString(_ name: StaticString) throws(Failure) -> String?
    mutating func optionalInt(_ name: StaticString) throws(Failure) -> Int?
    mutating func quantity(_ name: StaticString) throws(Failure) -> Quantity
    mutating func optionalQuantity(_ name: StaticString) throws(Failure) -> Quantity?
    mutating func bool(_ name: StaticString) throws(Failure) -> Bool
    mutating func role(_ name: StaticString) throws(Failure) -> Role
    mutating func priority(_ name: StaticString) throws(Failure) -> Priority
    mutating func optionalPriority(_ name: StaticString) throws(Failure) -> Priority?
    mutating func optionalTimestamp(_ name: StaticString) throws(Failure) -> Timestamp?
    mutating func color(_ name: StaticString) throws(Failure) -> Color
    mutating func optionalColor(_ name: StaticString) throws(Failure) -> Color?
    /// An item's details: seven optional fields (`category` … `barcode`).
    mutating func details() throws(Failure) -> ItemDetails
    /// An item's details as a merge patch: the same seven keys.
    mutating func detailsPatch() throws(Failure) -> ItemDetailsPatch
}

/// Receives a command's data fields in the writer's order (``Command/visitFields(_:)``):
/// the JSON codec's writer is one.
protocol CommandFieldVisitor {
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>)
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>?)
    mutating func field<Kind>(_ name: StaticString, _ value: [EntityID<Kind>])
    mutating func field(_ name: StaticString, _ value: [Int]?)
    mutating func field(_ name: StaticString, _ value: String)
    mutating func field(_ name: StaticString, _ value: String?)
    mutating func field(_ name: StaticString, _ value: Int?)
    mutating func field(_ name: StaticString, _ value: Bool)
    mutating func field(_ name: StaticString, _ value: Quantity)
    mutating func field(_ name: StaticString, _ value: Quantity?)
    mutating func field(_ name: StaticString, _ value: Timestamp?)
    mutating func field(_ name: StaticString, _ value: Priority)
    mutating func field(_ name: StaticString, _ value: Priority?)
    mutating func field(_ name: StaticString, _ value: Role)
    mutating func field(_ name: StaticString, _ value: Color)
    mutating func field(_ name: StaticString, _ value: Color?)
    mutating func details(_ value: ItemDetails)
    mutating func detailsPatch(_ patch: ItemDetailsPatch)
}

/// A reader that reads nothing and notes which keys were asked for, and
/// whether each may be absent: a command's declared fields.
private struct FieldRecorder: CommandDataReader {
    typealias Failure = Never
    static let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    static let detailKeys = ["category", "notes", "unitPrice", "photo", "quantity", "unit", "barcode"]
    var fields: [CommandDeclaration.Field] = []

    private mutating func note(_ name: StaticString, optional: Bool) {
        fields.append(.init(key: name.description, isOptional: optional))
    }

    mutating func id<Kind>(_ name: StaticString) -> EntityID<Kind> { note(name, optional: false); return EntityID(Self.zero) }
    mutating func optionalID<Kind>(_ name: StaticString) -> EntityID<Kind>? { note(name, optional: true); return nil }
    mutating func ids<Kind>(_ name: StaticString) -> [EntityID<Kind>] { note(name, optional: false); return [] }
    mutating func optionalInts(_ name: StaticString) -> [Int]? { note(name, optional: true); return nil }
    mutating func string(_ name: StaticString) -> String { note(name, optional: false); return "" }
    mutating func optionalString(_ name: StaticString) -> String? { note(name, optional: true); return nil }
    mutating func optionalInt(_ name: StaticString) -> Int? { note(name, optional: true); return nil }
    mutating func quantity(_ name: StaticString) -> Quantity { note(name, optional: false); return Quantity(1) }
    mutating func optionalQuantity(_ name: StaticString) -> Quantity? { note(name, optional: true); return nil }
    mutating func bool(_ name: StaticString) -> Bool { note(name, optional: false); return false }
    mutating func role(_ name: StaticString) -> Role { note(name, optional: false); return .member }
    mutating func priority(_ name: StaticString) -> Priority { note(name, optional: false); return .normal }
    mutating func optionalPriority(_ name: StaticString) -> Priority? { note(name, optional: true); return nil }
    mutating func optionalTimestamp(_ name: StaticString) -> Timestamp? { note(name, optional: true); return nil }
    mutating func color(_ name: StaticString) -> Color { note(name, optional: false); return .grey }
    mutating func optionalColor(_ name: StaticString) -> Color? { note(name, optional: true); return nil }
    mutating func details() -> ItemDetails {
        fields += Self.detailKeys.map { .init(key: $0, isOptional: true) }
        return .none
    }
    mutating func detailsPatch() -> ItemDetailsPatch {
        fields += Self.detailKeys.map { .init(key: $0, isOptional: true) }
        return ItemDetailsPatch(replacingWith: .none)
    }
}
