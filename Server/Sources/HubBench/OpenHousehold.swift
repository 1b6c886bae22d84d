import Foundation
import ShopEvents

/// A household of `hub-bench open`: its id and its devices' tokens, enrolled through the hub's own
/// routes (the first device made it and owns it; the others joined by invite codes).
struct OpenHousehold {
    let id: HouseholdID
    var tokens: [String]

    /// The household's sync route.
    var syncPath: String { "/v1/households/\(id)/sync" }

    /// A new household of `devices` devices, as a family starts (docs/HUB.md, "Enrolment"): `POST
    /// /v1/households`, its first push (`CreateHousehold`, the owner and the members added), then an
    /// invite (`POST …/invites`) and a join (`POST /v1/join`) for each further device.
    static func enrol(devices: Int, over connection: HubConnection) throws -> OpenHousehold {
        let made = try fields(connection.exchange(HubConnection.request("POST", "/v1/households",
                                                                       body: json([("device", .string("phone-0")), ("actor", .string("ana"))]))), 201)
        guard let id = made["household"].flatMap(HouseholdID.init), let owner = made["token"] else {
            throw BenchFailure(description: "POST /v1/households answered without household or token: \(made)")
        }
        var household = OpenHousehold(id: id, tokens: [owner])
        var commands = [CommandEnvelope(.createHousehold(household: id, name: "Open", currency: "EUR", timeZone: "UTC"), id: CommandID()),
                        CommandEnvelope(.addMember(member: "ana", role: .owner), id: CommandID())]
        for device in 1..<max(1, devices) { commands.append(CommandEnvelope(.addMember(member: "m\(device)", role: .member), id: CommandID())) }
        try household.push(commands, over: connection)
        for device in 1..<max(1, devices) {
            let invite = try fields(connection.exchange(HubConnection.request("POST", "/v1/households/\(id)/invites", token: owner,
                                                                             body: json([("actor", .string("m\(device)"))]))), 201)
            guard let code = invite["code"] else { throw BenchFailure(description: "an invite without a code: \(invite)") }
            let joined = try fields(connection.exchange(HubConnection.request("POST", "/v1/join",
                                                                             body: json([("code", .string(code)), ("device", .string("phone-\(device)"))]))), 201)
            guard let token = joined["token"] else { throw BenchFailure(description: "a join without a token: \(joined)") }
            household.tokens.append(token)
        }
        return household
    }

    /// A push of `commands` as the first device, over `connection`; every command must be accepted.
    func push(_ commands: [CommandEnvelope], over connection: HubConnection) throws {
        try Self.requireAccepted(connection.exchange(pushRequest(commands)))
    }

    /// The request of a push of `commands` as the first device.
    func pushRequest(_ commands: [CommandEnvelope]) -> [UInt8] {
        HubConnection.request("POST", syncPath, token: tokens[0], body: SyncWire.encode(.push(commands: commands)))
    }

    /// A push's answer: `200` with every command accepted.
    static func requireAccepted(_ answer: HTTPAnswer) throws {
        var lines = answer.body.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
        let response = try SyncWire.readResponse({ lines.next() })
        guard answer.status == 200, case let .results(results) = response, results.allSatisfy(\.ok) else {
            throw BenchFailure(description: "a push was refused: HTTP \(answer.status): \(response)")
        }
    }

    private static func json(_ pairs: [(String, JSONValue)]) -> [UInt8] { SyncWire.line(.object(pairs)) }

    /// The string fields of a JSON answer that must have `status`.
    private static func fields(_ answer: HTTPAnswer, _ status: Int) throws -> [String: String] {
        guard answer.status == status, case let .object(pairs)? = try? JSONValue.parse(answer.body) else {
            throw BenchFailure(description: "HTTP \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
        }
        var fields: [String: String] = [:]
        for (key, value) in pairs { if let text = value.stringValue { fields[key] = text } }
        return fields
    }
}
