import ShopEvents

/// One push of a batch that ``HubCore/write(_:)`` decides: its household, its commands, the
/// token's actor, and the token's hash (hex), checked live where its lines are written (nil where
/// the caller checked it already).
///
/// ```swift
/// let push = HubPush(household: HouseholdID(), commands: [], actor: "ana")
/// print(push.token == nil)   // true: checked by the caller
/// ```
public struct HubPush: Sendable {
    public var household: HouseholdID
    public var commands: [CommandEnvelope]
    public var actor: String
    public var token: String?

    public init(household: HouseholdID, commands: [CommandEnvelope], actor: String, token: String? = nil) {
        self.household = household; self.commands = commands; self.actor = actor; self.token = token
    }
}
