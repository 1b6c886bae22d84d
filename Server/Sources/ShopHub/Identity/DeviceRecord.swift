import Foundation
import ShopEvents

/// A device enrolled in a household.
///
/// ```swift
/// let token = Secrets.token()
/// let phone = DeviceRecord(household: HouseholdID(), name: "ana-phone", actor: "ana",
///                          tokenHash: TokenHash(of: token), created: Clock.system.now())
/// print(phone.revoked == nil)   // true: its token works
/// ```
public struct DeviceRecord: Hashable, Sendable {
    public var household: HouseholdID
    public var name: String
    /// Who its commands are by.
    public var actor: String
    public var tokenHash: TokenHash
    public var created: Timestamp
    public var lastSeen: Timestamp?
    public var revoked: Timestamp?
    /// Revoked because its actor was removed from the household (`RemoveMember`): refused as `member_removed`.
    public var memberRemoved: Bool

    public init(household: HouseholdID, name: String, actor: String, tokenHash: TokenHash, created: Timestamp,
                lastSeen: Timestamp? = nil, revoked: Timestamp? = nil, memberRemoved: Bool = false) {
        self.household = household; self.name = name; self.actor = actor; self.tokenHash = tokenHash
        self.created = created; self.lastSeen = lastSeen; self.revoked = revoked; self.memberRemoved = memberRemoved
    }
}
