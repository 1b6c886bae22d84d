import Foundation
import ShopEvents

/// A join code an owner made: it works once, until it expires or an owner cancels it.
///
/// ```swift
/// let code = Secrets.joinCode()
/// let invite = InviteRecord(household: HouseholdID(), codeHash: TokenHash(of: code), actor: "ben",
///                           expires: Timestamp(millisecondsSince1970: 1_800_000_000_000), by: "ana-phone")
/// print(invite.actor)   // ben
/// ```
public struct InviteRecord: Hashable, Sendable {
    public var household: HouseholdID
    public var codeHash: TokenHash
    /// The actor the joining device will be.
    public var actor: String
    public var expires: Timestamp
    /// The device that made it.
    public var by: String
    /// What owners name it by when they list or cancel it: random, and nothing of the code.
    public var id: String

    public init(household: HouseholdID, codeHash: TokenHash, actor: String, expires: Timestamp, by: String, id: String = Secrets.inviteID()) {
        self.household = household; self.codeHash = codeHash; self.actor = actor; self.expires = expires; self.by = by; self.id = id
    }
}
