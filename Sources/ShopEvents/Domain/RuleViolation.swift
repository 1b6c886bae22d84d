/// An error with a stable machine-readable code and a message a person can act on.
///
/// Every layer has its own error type (``RuleViolation``, ``LineDecodingError``,
/// ``CommandDecodingError``, ``JournalError``); all of them conform, so a tool
/// can print `code: message` for any of them.
public protocol ShopError: Error, CustomStringConvertible {
    /// Stable across releases, e.g. `already_on_list`; scripts match on it.
    var code: String { get }
    /// What was wrong, where (field and value, or line and byte offset), and what to do.
    var message: String { get }
}

extension ShopError {
    public var description: String { "\(code): \(message)" }
}

/// Why a command was rejected by a rule of the domain. The journal is left
/// byte-for-byte unchanged.
///
/// ```swift
/// do { try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 1)) }
/// catch let violation as RuleViolation where violation.reason == .alreadyOnList {
///     print(violation.message)   // item … "Milk" is already on list … and not bought
/// }
/// ```
public struct RuleViolation: ShopError, Hashable {
    /// The rule that was broken; its raw value is the stable ``code``.
    public enum Reason: String, CaseIterable, Sendable {
        case noHousehold = "no_household"
        case householdExists = "household_exists"
        case invalidName = "invalid_name"
        case nameTaken = "name_taken"
        case invalidQuantity = "invalid_quantity"
        case invalidBarcode = "invalid_barcode"
        case duplicateBarcode = "duplicate_barcode"
        case invalidPrice = "invalid_price"
        case invalidColor = "invalid_color"
        case invalidCurrency = "invalid_currency"
        case invalidTimeZone = "invalid_time_zone"
        case invalidText = "invalid_text"
        case invalidActor = "invalid_actor"
        case idInUse = "id_in_use"
        /// A command id the journal holds already, for a command of another type.
        case idReused = "id_reused"
        case unknownLocation = "unknown_location"
        case locationDeleted = "location_deleted"
        case unknownLocationFixed = "unknown_location_fixed"
        case unknownItem = "unknown_item"
        case itemDeleted = "item_deleted"
        case unknownList = "unknown_list"
        case listDeleted = "list_deleted"
        case listNotDeleted = "list_not_deleted"
        /// A name that several things share where one is meant (two deleted lists of one name): give the id.
        case ambiguousName = "ambiguous_name"
        case alreadyOnList = "already_on_list"
        case notOnList = "not_on_list"
        case alreadyBought = "already_bought"
        case nothingToClear = "nothing_to_clear"
        case orderMismatch = "order_mismatch"
        /// A store's order names a location twice.
        case duplicateLocation = "duplicate_location"
        case invalidPosition = "invalid_position"
        case unknownPurchase = "unknown_purchase"
        case alreadyReverted = "already_reverted"
        case unknownTrip = "unknown_trip"
        case unknownStore = "unknown_store"
        case storeDeleted = "store_deleted"
        case tripInProgress = "trip_in_progress"
        case tripNotRunning = "trip_not_running"
        case tripNotPaused = "trip_not_paused"
        case tripEnded = "trip_ended"
        case conflict = "conflict"
        case timeOutOfOrder = "time_out_of_order"
        /// A time too far ahead: `at` more than 5 minutes after the writer's clock, `purchasedAt` more than 24 hours after `at`.
        case inFuture = "in_future"
        /// The household has members and the actor is not one of them.
        case notAMember = "not_a_member"
        /// The actor's role does not allow the command.
        case forbidden = "forbidden"
        case alreadyMember = "already_member"
        case unknownMember = "unknown_member"
        /// The member already has that role.
        case unchanged = "unchanged"
        /// The household would be left without an owner.
        case lastOwner = "last_owner"
        /// An event in a journal that the rules would not have made from the state before it.
        case inconsistentEvent = "inconsistent_event"
    }

    public var reason: Reason
    public var message: String
    /// The command field at fault, when there is one.
    public var field: String?

    public init(_ reason: Reason, _ message: String, field: String? = nil) {
        self.reason = reason; self.message = message; self.field = field
    }

    public var code: String { reason.rawValue }
}
