import Foundation

/// The kind of thing an ``EntityID`` names. Only used as a type tag.
public protocol EntityKind: Sendable {}

/// A typed identifier: a UUID that knows what it names, so an item id can
/// never be passed where a list id is expected.
///
/// ```swift
/// let milk = ItemID()                                  // a fresh random id
/// let same = ItemID("e976a9e1-0806-4504-99bf-116004c8ded9")  // any case in
/// print(same!)                                          // upper case out
/// ```
///
/// Ids sort by their upper-case text, which is the tie-breaker of every
/// name-sorted view.
public struct EntityID<Kind: EntityKind>: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The underlying UUID.
    public let uuid: UUID

    /// Wraps an existing UUID.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// A new random id. Code that must be deterministic takes ids from an
    /// injected ``IDGenerator`` instead.
    public init() { self.uuid = UUID() }

    /// Byte by byte, which is the order of the upper-case text: the two words
    /// read with the first byte most significant.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        let (a0, a1) = lhs.words, (b0, b1) = rhs.words
        return (UInt64(bigEndian: a0), UInt64(bigEndian: a1)) < (UInt64(bigEndian: b0), UInt64(bigEndian: b1))
    }

    /// The 128 bits as two words: hashing and comparing them is cheaper than
    /// going through the UUID's bytes one by one.
    /// Byte i is bits 8i…8i+7 of its word (the compiler reads each as one load).
    @inlinable package var words: (UInt64, UInt64) {
        let u = uuid.uuid
        @inline(__always) func word(_ b: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) -> UInt64 {
            UInt64(b.0) | UInt64(b.1) << 8 | UInt64(b.2) << 16 | UInt64(b.3) << 24
                | UInt64(b.4) << 32 | UInt64(b.5) << 40 | UInt64(b.6) << 48 | UInt64(b.7) << 56
        }
        return (word((u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7)), word((u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15)))
    }

    @inlinable public func hash(into hasher: inout Hasher) {
        let (a, b) = words
        hasher.combine(a)
        hasher.combine(b)
    }

    /// What a `Dictionary` or `Set` keyed by ids uses instead of SipHash:
    /// two rounds of a 64-bit mixer (SplitMix64's), the table's seed entering
    /// the first, so that two ids can only collide through it — one cannot
    /// craft ids that collide in every table — at a fraction of SipHash's cost
    /// (lookups by id are most of what folding an event does).
    @inlinable public func _rawHashValue(seed: Int) -> Int {
        @inline(__always) func mix(_ x: UInt64) -> UInt64 {
            var z = x &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let (a, b) = words
        return Int(truncatingIfNeeded: mix(mix(a ^ UInt64(UInt(bitPattern: seed))) ^ b))
    }

    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.words == rhs.words }
}

/// Tags ids of households.
public enum HouseholdKind: EntityKind {}
/// Tags ids of store locations.
public enum LocationKind: EntityKind {}
/// Tags ids of items.
public enum ItemKind: EntityKind {}
/// Tags ids of shopping lists.
public enum ListKind: EntityKind {}
/// Tags ids of purchases.
public enum PurchaseKind: EntityKind {}
/// Tags ids of shopping trips.
public enum TripKind: EntityKind {}
/// The kind of a store's id.
public enum StoreKind: EntityKind {}
/// Tags ids of events (journal lines).
public enum EventKind: EntityKind {}
/// Tags ids of commands.
public enum CommandKind: EntityKind {}
/// Tags ids that tie several commands into one user action.
public enum CorrelationKind: EntityKind {}

/// A household's id: `let home = HouseholdID()`.
public typealias HouseholdID = EntityID<HouseholdKind>
/// A store location's id; ``EntityID/unknown`` is the Unknown Location's.
public typealias LocationID = EntityID<LocationKind>
/// An item's id: `let milk = ItemID()`.
public typealias ItemID = EntityID<ItemKind>
/// A shopping list's id.
public typealias ListID = EntityID<ListKind>
/// A purchase's own id, which `RevertPurchase` names.
public typealias PurchaseID = EntityID<PurchaseKind>
/// A shopping trip's id.
public typealias TripID = EntityID<TripKind>
/// A store's id.
public typealias StoreID = EntityID<StoreKind>
/// An event's own id, unique in the journal.
public typealias EventID = EntityID<EventKind>
/// A command's id: retrying with the same id is idempotent.
public typealias CommandID = EntityID<CommandKind>
/// Ties several commands into one user action or import.
public typealias CorrelationID = EntityID<CorrelationKind>

extension EntityID where Kind == LocationKind {
    /// The fixed id of the Unknown Location, `00000000-0000-0000-0000-000000000000`.
    /// Every household has it; two devices can never create two of them.
    public static let unknown = LocationID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
}

/// Where new ids come from. Inject a deterministic one in tests.
///
/// ```swift
/// var generator = IDGenerator.sequential()   // 00000000-…-000000000001, …02, …
/// let id: ItemID = generator.make()
/// ```
public struct IDGenerator: Sendable {
    private let next: @Sendable () -> UUID

    /// A generator backed by any function.
    public init(_ next: @escaping @Sendable () -> UUID) { self.next = next }

    /// A new id of any kind.
    public func make<Kind>() -> EntityID<Kind> { EntityID(next()) }

    /// A new raw UUID.
    public func makeUUID() -> UUID { next() }
}
