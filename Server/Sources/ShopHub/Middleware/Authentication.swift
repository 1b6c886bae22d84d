import Hummingbird
import ShopEvents

/// The device a household's route was asked by: the household of its path, and the device whose bearer
/// token the request carries (its name, its actor, its token's hash). Whether it is an owner is asked when
/// a route needs it (``HubRoutes/requireOwner(_:)``), after the route's own checks of the request.
struct AuthenticatedDevice: Sendable {
    let household: HouseholdID
    let record: DeviceRecord
    var actor: String { record.actor }
    var name: String { record.name }
}

/// The guard of `/v1/households/{household}/…`: `unknown_household` for a path's household that is no id,
/// `unauthorized` without a live token, `rate_limited` past the token's rate, `unknown_household` or
/// `forbidden` for another household's token, in that order; else the device goes into the context
/// (``HubRequestContext/device``), the log line and the "seen" write-back.
/// `forSync`: the storage may answer from memory, and checks the token again as it answers the sync.
struct Authentication: RouterMiddleware {
    typealias Context = HubRequestContext
    let hub: HubRoutes
    var forSync = false

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        let device = try await authenticate(request, context)
        context.logDevice.set(device.name)
        context.seenDevice.set(device.record)
        context.device = device
        return try await next(request, context)
    }

    private func authenticate(_ request: Request, _ context: HubRequestContext) async throws -> AuthenticatedDevice {
        let storage = hub.storage, clock = hub.clock
        // A path's household that is no id is no household: nothing is looked up for it.
        guard let text = context.parameters.get("household"), let household = HouseholdID(text) else {
            throw HubError.unknownHousehold(context.parameters.get("household") ?? "")
        }
        guard let token = Self.bearerToken(request.headers[.authorization]) else {
            throw HubError.unauthorized("this route takes Authorization: Bearer TOKEN")
        }
        let hash = TokenHash(of: String(token))
        let rate = hub.limits.requestsPerTokenPerSecond, burst = hub.limits.requestsPerTokenBurst
        let found = forSync ? try await storage.authenticateForSync(tokenHash: hash, rate: rate, burst: burst, at: clock.now())
                            : try await storage.authenticate(tokenHash: hash, rate: rate, burst: burst, at: clock.now())
        guard let (device, decision) = found, device.tokenHash.matches(hash), device.revoked == nil else {
            throw await hub.deadToken(hash)
        }
        let wait: Int?
        switch decision {
        case .notKept: wait = hub.tokenLimiter.take(hash.hex, now: HubRoutes.seconds(clock))
        case .allowed: wait = nil
        case let .limited(retryAfter): wait = retryAfter
        }
        if let wait {
            throw HubError.rateLimited("more than \(Int(rate)) requests a second from this device", retryAfter: wait)
        }
        if device.household != household {
            // Asked only then: a device's own household exists.
            guard try await storage.householdExists(household) else { throw HubError.unknownHousehold(text) }
            throw HubError.forbidden("the token is another household's")
        }
        return AuthenticatedDevice(household: household, record: device)
    }

    /// The token of an `Authorization` header of the Bearer scheme, whose name is case-insensitive
    /// (RFC 9110): `Bearer T`, `bearer T`, `BEARER T`; nil for any other header or none.
    static func bearerToken(_ header: String?) -> Substring? {
        guard let header, let space = header.firstIndex(where: { $0 == " " || $0 == "\t" }),
              header[..<space].lowercased() == "bearer" else { return nil }
        let token = header[space...].trimmingBlanks
        return token.isEmpty ? nil : token
    }
}
