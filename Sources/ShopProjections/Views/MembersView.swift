import Foundation
import ShopEvents

/// The household's members in the order they joined, with their role, when
/// they joined and who added them; none for an open household (where every
/// actor may issue every command).
///
/// ```swift
/// let members = MembersView(views)
/// print(members.isOpen ? "open household" : members.members.map { "\($0.member) (\($0.role.rawValue))" })
/// ```
public struct MembersView: Hashable, Sendable {
    /// One row of the view.
    public struct Row: Hashable, Sendable {
        public var member: String
        public var role: Role
        public var joinedAt: Timestamp
        public var addedBy: String

        /// Memberwise, for preview data and tests.
        public init(member: String, role: Role, joinedAt: Timestamp, addedBy: String) {
            self.member = member; self.role = role; self.joinedAt = joinedAt; self.addedBy = addedBy
        }
    }

    public var asOf: Int
    public var members: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, members: [Row]) {
        self.asOf = asOf; self.members = members
    }
    /// `true` when the household has no members.
    public var isOpen: Bool { members.isEmpty }

    public init(_ views: some StateFold) {
        asOf = views.asOf
        members = views.state.members.map { Row(member: $0.name, role: $0.role, joinedAt: $0.joinedAt, addedBy: $0.addedBy) }
    }

    public var json: JSONValue {
        .object([
            ("view", "members"), ("asOf", .int(asOf)),
            ("members", .array(members.map { row in
                .object([("member", .string(row.member)), ("role", .string(row.role.rawValue)),
                         ("joinedAt", .string(row.joinedAt.description)), ("addedBy", .string(row.addedBy))])
            })),
            ("open", .bool(isOpen)),
        ])
    }
}
