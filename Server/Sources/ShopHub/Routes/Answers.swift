import Hummingbird
import ShopEvents

// The routes' JSON answers, each a type: written by ``AnswerEncoder`` (keys in the order declared here),
// read back by a client's `JSONDecoder`.

/// A new device's token (`POST /v1/households`, `POST /v1/join`): 201, kept in no cache (`Cache-Control: no-store`).
struct DeviceToken: ResponseEncodable, Decodable {
    let household: String
    let actor: String
    let token: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(self, from: request, context: context)
        response.status = .created
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// A new invite's code and when it expires (`POST …/invites`: 201).
struct InviteCode: ResponseEncodable, Decodable {
    let code: String
    let expires: String
}

/// The outstanding invites (`GET …/invites`): never their codes.
struct InviteList: ResponseEncodable, Decodable {
    struct Invite: Codable {
        let id: String
        let actor: String
        /// The device that made it.
        let by: String
        let expires: String
    }
    let invites: [Invite]
}

/// The household's devices (`GET …/devices`).
struct DeviceList: ResponseEncodable, Decodable {
    struct Device: Codable {
        let device: String
        let actor: String
        let created: String
        /// `null` for a device never seen since it joined.
        let lastSeen: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(device, forKey: .device)
            try container.encode(actor, forKey: .actor)
            try container.encode(created, forKey: .created)
            try container.encode(lastSeen, forKey: .lastSeen)
        }
    }
    let devices: [Device]
}

/// `/healthz` and `/readyz`.
struct HealthStatus: ResponseEncodable, Decodable {
    let status: String
}
