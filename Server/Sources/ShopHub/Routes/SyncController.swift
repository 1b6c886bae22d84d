import Foundation
import Hummingbird
import ServiceLifecycle
import ShopEvents

/// `POST …/sync`: a device's hello, pull (which may wait for lines: a long poll) or push, one request line
/// (docs/SYNC.md). A push goes to the household's ``PushQueue`` through the storage; an accepted one wakes
/// the household's waiting polls, on this process and, through the storage, on the others.
struct SyncController {
    let hub: HubRoutes

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.post(use: sync)
        return routes
    }

    func sync(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let authenticated = try context.requireDevice()
        let household = authenticated.household, device = authenticated.record
        let bytes = try await HubRoutes.body(request, limit: hub.limits.maxBodyBytes)
        var line = bytes
        if line.last == 0x0A { line.removeLast() }
        if line.contains(0x0A) { throw HubError.badRequest("the body is one request line (hello, pull or push)") }
        let syncRequest: SyncRequest
        do { syncRequest = try SyncWire.decodeRequest(line) } catch { throw HubError.badRequest(error.message) }
        // Read again only for a pull (a push's body may be a MiB): the wire checked `wait`, and keeps none.
        let wait: Double = if case .pull = syncRequest { min(try Self.wait(line, max: 60), Double(hub.limits.maxWaitSeconds)) } else { 0 }
        let started = ContinuousClock.now
        var answer: SyncResponse
        let generation = hub.watch.generation(household)
        do {
            answer = try await hub.storage.sync(household, syncRequest, as: device.actor, token: device.tokenHash)
            if case let .pull(after, hash) = syncRequest, wait > 0 {
                answer = try await longPoll(household, after: after, hash: hash, device: device, until: started + .seconds(wait),
                                            seen: generation, first: answer)
            }
        } catch let refusal as HubError where refusal.code == HubError.unknownToken.code {
            // Found revoked by the statement that answered: why, as the token's record says.
            throw await hub.deadToken(device.tokenHash)
        }
        if case let .push(commands) = syncRequest, case let .results(results) = answer {
            try await removeMembers(commands, results, of: household)
        }
        let seconds = started.duration(to: .now).seconds
        switch answer {
        case let .results(results):
            let accepted = results.filter(\.ok).count
            hub.hubMetrics.commandsAccepted.increment(by: accepted)
            hub.hubMetrics.commandsRejected.increment(by: results.count - accepted)
            hub.hubMetrics.pushSeconds.recordSeconds(seconds)
            if accepted > 0 { hub.watch.bump(household) }
        case let .lines(lines, _):
            hub.hubMetrics.linesPulled.increment(by: lines.count)
            if wait == 0 { hub.hubMetrics.pullSeconds.recordSeconds(seconds) }
        case let .error(failure):
            throw Self.syncError(failure)
        case .hello:
            break
        }
        // A hello names the token's actor: a device given only its token learns whose commands it makes.
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: SyncWire.encode(answer, enrolledActor: device.actor))))
    }

    /// A pull whose `first` answer has no line waits for one after `after` (docs/HUB.md): it answers with
    /// such lines, or with none once `deadline` has passed or the server stops. A wake-up that brings no line
    /// (a late `NOTIFY` of lines the device has read already, a retried push answered from its record) waits
    /// again. The token is checked again when the answer is given, on every storage: a device revoked while
    /// it waited is answered `unauthorized`.
    private func longPoll(_ household: HouseholdID, after: Int, hash: SHA256Digest, device: DeviceRecord, until deadline: ContinuousClock.Instant,
                          seen: Int, first: SyncResponse) async throws -> SyncResponse {
        var answer = first, generation = seen
        while case let .lines(lines, _) = answer, lines.isEmpty, !hub.watch.isStopped {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            await withGracefulShutdownHandler {
                await hub.watch.wait(household, after: generation, seconds: left.seconds)
            } onGracefulShutdown: {
                hub.watch.stop()
            }
            generation = hub.watch.generation(household)
            // Every wake-up checks the token again: a revoke wakes the household's polls, so a revoked phone hears at once.
            try await requireLive(device)
            answer = try await hub.storage.sync(household, .pull(after: after, hash: hash), as: device.actor, token: device.tokenHash)
            // Its own member's removal, committed while it waited (on any process, whose revocation may still be on its
            // way): the device is out from that line on.
            if case let .lines(lines, _) = answer, Self.removes(device.actor, in: lines) { throw HubError.memberRemoved }
        }
        // Every wait ended in the token's check above: the answer goes to a live token.
        return answer
    }

    /// `unauthorized` (or `member_removed`) unless the device's token is still enrolled and not revoked.
    private func requireLive(_ device: DeviceRecord) async throws {
        guard let current = try await hub.storage.device(tokenHash: device.tokenHash), current.revoked == nil else {
            throw await hub.deadToken(device.tokenHash)
        }
    }

    /// After a push: every member an accepted `RemoveMember` removed loses every device at once, on every
    /// process (their polls wake and are refused), and their outstanding invites; adding them again takes a
    /// new invite. Done before the push is answered: a push whose answer is lost is sent again, answered from
    /// its record, and removes again.
    private func removeMembers(_ commands: [CommandEnvelope], _ results: [PushResult], of household: HouseholdID) async throws {
        let accepted = Set(results.filter(\.ok).map(\.command))
        var removed: [String] = []
        for envelope in commands {
            guard let id = envelope.id, accepted.contains(id), case let .removeMember(member) = envelope.command, !removed.contains(member) else { continue }
            removed.append(member)
        }
        guard !removed.isEmpty else { return }
        let now = hub.clock.now()
        for member in removed {
            _ = try await hub.storage.removeMember(member, of: household, at: now)
        }
        hub.watch.bump(household)
    }

    /// Whether `lines` record the removal of `actor` from the household (a `MemberRemoved` of it).
    static func removes(_ actor: String, in lines: [[UInt8]]) -> Bool {
        lines.contains { line in
            guard String(decoding: line, as: UTF8.self).contains("\"MemberRemoved\""),
                  case let .event(recorded)? = try? EventLineCodec.decodeLine(line), case let .memberRemoved(member) = recorded.event else { return false }
            return member == actor
        }
    }

    /// `"wait"` of a pull, any number of seconds from 0 to `max` (`1.5` too): 0 when absent.
    private static func wait(_ line: [UInt8], max: Double) throws -> Double {
        guard case let .object(pairs)? = try? JSONValue.parse(line), case let .object(pull)? = pairs.first(where: { $0.0 == "pull" })?.1,
              let given = pull.first(where: { $0.0 == "wait" })?.1 else { return 0 }
        guard let seconds = given.doubleValue, seconds >= 0, seconds <= max else {
            throw HubError.badRequest("pull's \"wait\" is a number of seconds from 0 to \(Int(max))")
        }
        return seconds
    }

    private static func syncError(_ failure: SyncFailure) -> HubError {
        switch failure.code {
        case "diverged": return HubError(.conflict, failure.code, failure.message)
        case "bad_request", "unsupported_protocol": return HubError(.badRequest, failure.code, failure.message)
        default: return HubError.unavailable("the household's journal cannot be used now (\(failure.code): \(failure.message))")
        }
    }
}
