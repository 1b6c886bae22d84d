import Foundation

/// The names of the live things of one kind, ignoring case: the uniqueness
/// rule of items, locations and lists, kept up to date by `evolve`.
struct NameIndex<Kind: EntityKind>: Hashable, Sendable {
    private var owners: [String: EntityID<Kind>] = [:]
    /// "item", "location" or "list", for messages.
    let noun: String

    init(_ noun: String) { self.noun = noun }

    static func key(_ name: String) -> String { name.lowercased() }

    /// The trimmed name, if it is valid and no other live thing of this kind has it.
    func available(_ raw: String, for id: EntityID<Kind>) throws(RuleViolation) -> String {
        let name = try ShopState.validName(raw)
        if let other = owners[Self.key(name)], other != id {
            throw RuleViolation(.nameTaken, "name \(ShopState.quoted(name)) is already used by \(noun) \(other)", field: "name")
        }
        return name
    }

    /// The live thing called `name`, ignoring case and surrounding white space.
    func owner(of name: String) -> EntityID<Kind>? {
        owners[Self.key(ShopState.trimmed(name))]
    }

    mutating func claim(_ name: String, by id: EntityID<Kind>) { owners[Self.key(name)] = id }

    /// Frees `name` if `id` holds it (a deleted thing's name is free to reuse).
    mutating func release(_ name: String, by id: EntityID<Kind>) {
        if owners[Self.key(name)] == id { owners[Self.key(name)] = nil }
    }

    /// Moves `id` from `old` to `new`; a deleted thing claims no name.
    mutating func rename(_ id: EntityID<Kind>, from old: String, to new: String, isLive: Bool) {
        release(old, by: id)
        if isLive { claim(new, by: id) }
    }
}
