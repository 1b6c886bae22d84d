import Foundation

// Members and roles (docs/COMMANDS.md, docs/MEMBERS.md): who may issue which command, and the
// rules of AddMember, ChangeMemberRole and RemoveMember.
//
// A household with no members is open: every actor may issue every command
// (every v1 journal is open). The first AddMember closes it.

/// One member of a household, as the `members` view shows it.
public struct Member: Hashable, Sendable {
    /// The actor name, compared exactly.
    public var name: String
    public var role: Role
    /// When the member was (last) added.
    public var joinedAt: Timestamp
    /// Who added the member.
    public var addedBy: String

    public init(name: String, role: Role, joinedAt: Timestamp, addedBy: String) {
        self.name = name; self.role = role; self.joinedAt = joinedAt; self.addedBy = addedBy
    }
}

extension ShopDecider {
    /// The role check, after `no_household` and before every other rule:
    /// in a closed household, a non-member is `not_a_member`; a viewer may
    /// issue nothing; a member everything but what its declaration keeps for
    /// owners (`AddMember`, `ChangeMemberRole`, `PurgeList`; `RemoveMember` of
    /// someone else): ``CommandDeclaration/issuer``.
    static func authorize(_ command: Command, actor: String, _ state: ShopState) throws(RuleViolation) {
        guard !state.isOpen else { return }
        guard let member = state.member(named: actor) else {
            throw RuleViolation(.notAMember, "\(ShopState.quoted(actor)) is not a member of this household, which has members; an owner can add them (AddMember) — \(command.typeName) was not done", field: "actor")
        }
        func forbidden(_ why: String) -> RuleViolation {
            RuleViolation(.forbidden, "\(ShopState.quoted(actor)) is a \(member.role.rawValue) of this household: \(why) — \(command.typeName) was not done", field: "actor")
        }
        switch member.role {
        case .owner: return
        case .viewer: throw forbidden("a viewer may look, and issue no command")
        case .member:
            switch command.kind.declaration.issuer {
            case .member: return
            case let .owner(why): throw forbidden(why)
            case .ownerOrItself:
                guard case let .removeMember(other) = command, other != actor else { return }
                throw forbidden("a member may remove only itself (leave), not \(ShopState.quoted(other))")
            }
        }
    }

    /// In an open household the issuer first becomes an owner (two events),
    /// unless the member *is* the issuer: then just that one, as owner.
    static func decideAddMember(_ member: String, role: Role, actor: String, _ state: ShopState) throws(RuleViolation) -> [Event] {
        try ShopState.validMember(member)
        if let existing = state.member(named: member) {
            throw RuleViolation(.alreadyMember, "\(ShopState.quoted(member)) is already a member (\(existing.role.rawValue)); ChangeMemberRole changes a role", field: "member")
        }
        guard state.isOpen else { return [.memberAdded(member: member, role: role)] }
        if member == actor {
            guard role == .owner else {
                throw RuleViolation(.lastOwner, "the first member of a household must be an owner: \(ShopState.quoted(member)) adding itself as \(role.rawValue) would leave it without one", field: "role")
            }
            return [.memberAdded(member: member, role: .owner)]
        }
        try ShopState.validMember(actor, field: "actor")
        return [.memberAdded(member: actor, role: .owner), .memberAdded(member: member, role: role)]
    }

    static func decideChangeMemberRole(_ member: String, role: Role, _ state: ShopState) throws(RuleViolation) -> [Event] {
        let current = try state.requireMember(member)
        guard current.role != role else {
            throw RuleViolation(.unchanged, "\(ShopState.quoted(member)) is already a \(role.rawValue)", field: "role")
        }
        if current.role == .owner { try state.requireAnotherOwner(than: member, doing: "making it a \(role.rawValue)") }
        return [.memberRoleChanged(member: member, role: role)]
    }

    static func decideRemoveMember(_ member: String, _ state: ShopState) throws(RuleViolation) -> [Event] {
        let current = try state.requireMember(member)
        if current.role == .owner { try state.requireAnotherOwner(than: member, doing: "removing it") }
        return [.memberRemoved(member: member)]
    }
}

extension ShopState {
    /// No members: every actor may issue every command.
    public var isOpen: Bool { members.isEmpty }

    /// The member of that actor name (compared exactly).
    public func member(named name: String) -> Member? { members.first { $0.name == name } }

    static func validMember(_ name: String, field: String = "member") throws(RuleViolation) {
        try Limits.checkNoControlCharacters(name, field: field)
        do { try Limits.checkActor(name) } catch {
            throw RuleViolation(.invalidActor, "\(field) \(quoted(name)) must be an actor name: 1 to 100 characters, not white space only", field: field)
        }
    }

    func requireMember(_ name: String) throws(RuleViolation) -> Member {
        guard let found = member(named: name) else {
            let names = members.map(\.name)
            throw RuleViolation(.unknownMember, "\(Self.quoted(name)) is not a member\(names.isEmpty ? " (the household has none)" : "; the members are \(names.joined(separator: ", "))")", field: "member")
        }
        return found
    }

    func requireAnotherOwner(than name: String, doing what: String) throws(RuleViolation) {
        guard members.contains(where: { $0.role == .owner && $0.name != name }) else {
            throw RuleViolation(.lastOwner, "\(Self.quoted(name)) is the household's last owner: \(what) would leave it without one; make another member an owner first", field: "member")
        }
    }

    mutating func applyMemberAdded(_ name: String, role: Role, at: Timestamp, by actor: String) {
        members.removeAll { $0.name == name }
        members.append(Member(name: name, role: role, joinedAt: at, addedBy: actor))
    }

    mutating func applyMemberRoleChanged(_ name: String, role: Role) {
        guard let index = members.firstIndex(where: { $0.name == name }) else { return }
        members[index].role = role
    }

    mutating func applyMemberRemoved(_ name: String) { members.removeAll { $0.name == name } }
}
