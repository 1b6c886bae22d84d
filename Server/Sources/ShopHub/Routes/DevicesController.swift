import Hummingbird
import ShopEvents

/// `…/devices`: the household's devices (owners), and a device revoked (its own, or any by an owner).
struct DevicesController {
    let hub: HubRoutes

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get(use: list)
        routes.delete(":device", use: revoke)
        return routes
    }

    func list(_ request: Request, _ context: HubRequestContext) async throws -> DeviceList {
        let device = try context.requireDevice()
        try await hub.requireOwner(device)
        let devices = try await hub.storage.devices(of: device.household)
        return DeviceList(devices: devices.map { .init(device: $0.name, actor: $0.actor, created: $0.created.description, lastSeen: $0.lastSeen?.description) })
    }

    func revoke(_ request: Request, _ context: HubRequestContext) async throws -> HTTPResponse.Status {
        let device = try context.requireDevice()
        guard let name = HubRoutes.parameter(context, "device") else { throw HubError.badRequest("no device named") }
        if name != device.name { try await hub.requireOwner(device) }
        guard try await hub.storage.revokeDevice(name, of: device.household, at: hub.clock.now()) else {
            throw HubError(.notFound, "unknown_device", "household \(device.household) has no device named \(HubError.bounded(name))")
        }
        // The household's waiting polls wake and check their tokens: the revoked device's answers 401 now, not when its wait ends.
        hub.watch.bump(device.household)
        return .noContent
    }
}
