import Hummingbird
import Metrics
import ShopEvents

/// `POST /v1/households` (a new household and its first device, its owner) and `POST /v1/join` (a device
/// joins with an invite's code): the two routes no token opens, each answered with the new device's token.
struct HouseholdsController {
    let hub: HubRoutes

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.post("households", use: create)
        routes.post("join", use: join)
        return routes
    }

    func create(_ request: Request, _ context: HubRequestContext) async throws -> DeviceToken {
        try HubRoutes.requireJSON(request)
        let body = try await HubRoutes.object(request, limit: hub.limits.maxBodyBytes)
        let device = try HubRoutes.name(body, "device"), actor = try HubRoutes.name(body, "actor")
        let now = hub.clock.now(), limit = hub.limits.householdsPerAddressPerHour
        let hourAgo = Timestamp(millisecondsSince1970: now.millisecondsSince1970 - 3_600_000)
        let created = try await hub.storage.householdsCreated(from: context.clientAddress, since: hourAgo)
        guard created < limit else {
            throw HubError.rateLimited("\(created) households were created from this address in the last hour; at most \(limit)", retryAfter: 3600)
        }
        let household = HouseholdID(), token = Secrets.token()
        let record = DeviceRecord(household: household, name: device, actor: actor, tokenHash: TokenHash(of: token), created: now)
        try await hub.storage.createHousehold(household, firstDevice: record, from: context.clientAddress)
        Counter(label: "shop_hub_households_created_total").increment()
        return DeviceToken(household: household.description, actor: actor, token: token)
    }

    func join(_ request: Request, _ context: HubRequestContext) async throws -> DeviceToken {
        // Before the join's quota is spent: another website's form post spends none.
        try HubRoutes.requireJSON(request)
        if let wait = hub.joinLimiter.take(context.clientAddress, now: HubRoutes.seconds(hub.clock)) {
            throw HubError.rateLimited("too many join attempts from this address", retryAfter: wait)
        }
        let body = try await HubRoutes.object(request, limit: hub.limits.maxBodyBytes)
        guard let typed = body["code"]?.stringValue else { throw HubError.badRequest("join needs \"code\", a string") }
        let device = try HubRoutes.name(body, "device")
        let token = Secrets.token(), now = hub.clock.now()
        let redeemed = try await hub.storage.redeemInvite(codeHash: TokenHash(of: Secrets.canonicalCode(typed)), at: now) { invite in
            DeviceRecord(household: invite.household, name: device, actor: invite.actor, tokenHash: TokenHash(of: token), created: now)
        }
        guard let (invite, _) = redeemed else { throw HubError.unknownInvite }
        return DeviceToken(household: invite.household.description, actor: invite.actor, token: token)
    }
}
