import Foundation

/// What a member of a household may do (docs/COMMANDS.md, "Members and roles").
///
/// | role | may issue |
/// |---|---|
/// | `owner` | every command |
/// | `member` | every command but `AddMember`, `ChangeMemberRole`, `PurgeList`, and `RemoveMember` of anyone but itself |
/// | `viewer` | no command |
///
/// ```swift
/// try journal.execute(.addMember(member: "ben", role: .member))   // ana (the issuer) becomes an owner first
/// ```
public enum Role: String, Hashable, Sendable, CaseIterable {
    case owner, member, viewer
}
