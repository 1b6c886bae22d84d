import Hummingbird
import ShopEvents

/// `…/invites` (owners): make an invite for an actor, list the outstanding ones, cancel one.
struct InvitesController {
    let hub: HubRoutes

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.post(use: create)
        routes.get(use: list)
        routes.delete(":invite", use: cancel)
        return routes
    }

    func create(_ request: Request, _ context: HubRequestContext) async throws -> EditedResponse<InviteCode> {
        let device = try context.requireDevice()
        // After the token (no form of another website carries one): a request without one is told so first.
        try HubRoutes.requireJSON(request)
        try await hub.requireOwner(device)
        let body = try await HubRoutes.object(request, limit: hub.limits.maxBodyBytes)
        let actor = try HubRoutes.name(body, "actor")
        var seconds = hub.limits.defaultInviteSeconds
        if let given = body["expiresIn"] {
            guard let value = given.intValue, value > 0, value <= hub.limits.maxInviteSeconds else {
                throw HubError.badRequest("\"expiresIn\" is a number of seconds from 1 to \(hub.limits.maxInviteSeconds) (30 days)")
            }
            seconds = value
        }
        let code = Secrets.joinCode(), now = hub.clock.now()
        let expires = Timestamp(millisecondsSince1970: now.millisecondsSince1970 + Int64(seconds) * 1000)
        try await hub.storage.addInvite(InviteRecord(household: device.household, codeHash: TokenHash(of: code), actor: actor,
                                                     expires: expires, by: device.name))
        return EditedResponse(status: .created, response: InviteCode(code: code, expires: expires.description))
    }

    /// The outstanding invites: who each is for, which device made it, when it expires; never its code.
    func list(_ request: Request, _ context: HubRequestContext) async throws -> InviteList {
        let device = try context.requireDevice()
        try await hub.requireOwner(device)
        let invites = try await hub.storage.invites(of: device.household, at: hub.clock.now())
        return InviteList(invites: invites.map { .init(id: $0.id, actor: $0.actor, by: $0.by, expires: $0.expires.description) })
    }

    /// Cancels an outstanding invite: its code is refused at join from then on, as an unknown one.
    func cancel(_ request: Request, _ context: HubRequestContext) async throws -> HTTPResponse.Status {
        let device = try context.requireDevice()
        try await hub.requireOwner(device)
        let id = HubRoutes.parameter(context, "invite") ?? ""
        guard try await hub.storage.cancelInvite(id, of: device.household, at: hub.clock.now()) else {
            throw HubError(.notFound, "unknown_invite", "household \(device.household) has no outstanding invite \(HubError.bounded(id))")
        }
        return .noContent
    }
}
