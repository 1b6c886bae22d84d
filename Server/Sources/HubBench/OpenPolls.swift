import Foundation
import ShopEvents
#if canImport(Glibc)
import Glibc
#endif

/// The devices of `hub-bench open`, each one keep-alive connection holding its long poll, as a phone
/// with the web app open does: all connected and polling at once, driven from one thread by `poll`
/// (what the load generator spends is taken from the cores the hub runs on).
final class OpenPolls {
    private struct Device {
        let household: Int
        /// Within its household: 0 is the owner, whose token pushes.
        let number: Int
        /// The hub process it talks to (an index into the ports).
        let process: Int
        let connection: HubConnection
        var head = JournalHead.empty
    }

    /// One device woken by a push to its household: from the push's answer read and from its request
    /// written, to the device's answer with the new line read, in ms.
    struct Wake {
        var fromAnswer: Double
        var fromRequest: Double
        var crossProcess: Bool
    }

    private let households: [OpenHousehold]
    private var devices: [Device] = []
    private let wait: Int

    /// Connects every device of `households`: device N of a household to `ports[N % ports.count]`.
    init(_ households: [OpenHousehold], ports: [Int], wait: Int) throws {
        self.households = households
        self.wait = wait
        for (h, household) in households.enumerated() {
            for number in household.tokens.indices {
                devices.append(Device(household: h, number: number, process: number % ports.count,
                                      connection: try HubConnection(port: ports[number % ports.count])))
            }
        }
    }

    var count: Int { devices.count }

    func close() { for device in devices { device.connection.close() } }

    /// Every device says hello at once and learns its household's head from the answer.
    func hello() throws {
        for device in devices {
            let body = SyncWire.encode(.hello(protocol: SyncWire.protocolVersion, device: "phone-\(device.number)", actor: ""))
            try device.connection.send(request(device, body))
        }
        var pending = Set(devices.indices)
        try drain(while: { !pending.isEmpty }) { index, answer in
            guard let index else { return }   // never: no other connection is drained here
            guard answer.status == 200, case let .hello(_, _, head) = try Self.response(answer) else {
                throw BenchFailure(description: "hello answered HTTP \(answer.status)")
            }
            devices[index].head = head
            pending.remove(index)
        }
    }

    /// Every device's long poll written, all at once.
    func openPolls() throws {
        for index in devices.indices { try poll(index) }
    }

    /// `count` pushes, one after another (bounded by `limit` seconds): each to the next household, as its
    /// owner, over `pushers[i % pushers.count]` (a connection of its own to a hub process); each waits until
    /// the push is answered and every device of the household has its answer with the new line, and the
    /// woken devices poll again at once. The other devices' wakes, and each push's own latency in ms.
    func wake(_ count: Int, pushers: [HubConnection], limit: Double) throws -> (wakes: [Wake], pushes: [Double]) {
        var wakes: [Wake] = [], pushes: [Double] = []
        let start = ContinuousClock.now
        for i in 0..<count where seconds(since: start) < limit {
            let h = i % households.count, process = i % pushers.count
            let members = Set(devices.indices.filter { devices[$0].household == h })
            let began = ContinuousClock.now
            try pushers[process].send(households[h].pushRequest(createItems(1, prefix: "wake \(i)")))
            var answered: ContinuousClock.Instant?
            var woke: [Int: ContinuousClock.Instant] = [:]
            try drain(while: { answered == nil || woke.count < members.count }, also: pushers[process]) { index, answer in
                let at = ContinuousClock.now
                guard let index else {
                    try OpenHousehold.requireAccepted(answer)
                    answered = at
                    return
                }
                guard try take(answer, index) else { return }
                guard members.contains(index) else {
                    throw BenchFailure(description: "a device of another household woke with lines")
                }
                woke[index] = woke[index] ?? at
            }
            guard let answered else { continue }   // never: the drain ends once it is set
            pushes.append(milliseconds(began, answered))
            for (index, at) in woke where devices[index].number != 0 {
                wakes.append(Wake(fromAnswer: milliseconds(answered, at), fromRequest: milliseconds(began, at),
                                  crossProcess: devices[index].process != process))
            }
        }
        return (wakes, pushes)
    }

    /// A device's poll answered: its head moved to the last line, and its next poll written. True when
    /// the answer brought lines (a poll whose wait ran out brings none, and simply polls again).
    private func take(_ answer: HTTPAnswer, _ index: Int) throws -> Bool {
        guard answer.status == 200, case let .lines(lines, _) = try Self.response(answer) else {
            throw BenchFailure(description: "a poll answered HTTP \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
        }
        if let last = lines.last {
            guard case let .event(recorded) = try EventLineCodec.decodeLine(last) else {
                throw BenchFailure(description: "a poll's last line is not an event")
            }
            devices[index].head = JournalHead(seq: recorded.seq, hash: SHA256.hash(last))
        }
        try poll(index)
        return !lines.isEmpty
    }

    private func poll(_ index: Int) throws {
        let head = devices[index].head
        let body = SyncWire.line(.object([("pull", .object([("after", .int(head.seq)), ("hash", .string(head.hash.hex)),
                                                             ("wait", .int(wait))]))]))
        try devices[index].connection.send(request(devices[index], body))
    }

    private func request(_ device: Device, _ body: [UInt8]) -> [UInt8] {
        let household = households[device.household]
        return HubConnection.request("POST", household.syncPath, token: household.tokens[device.number], body: body)
    }

    /// Hands every answer that arrives on the devices' connections (index) and on `also` (nil) to
    /// `handle`, while `condition` holds; fails after 10 s with no answer.
    private func drain(while condition: () -> Bool, also: HubConnection? = nil, _ handle: (Int?, HTTPAnswer) throws -> Void) throws {
        let extra = also == nil ? 0 : 1
        let fds = (also.map { [$0.fd] } ?? []) + devices.map(\.connection.fd)
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while condition() {
            let ready = Glibc.poll(&polls, nfds_t(polls.count), 10_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw BenchFailure(description: "no answer from the hub in 10 s") }
            for k in polls.indices where polls[k].revents != 0 {
                let connection = k < extra ? also : devices[k - extra].connection
                while let answer = try connection?.receive() { try handle(k < extra ? nil : k - extra, answer) }
            }
        }
    }

    private static func response(_ answer: HTTPAnswer) throws -> SyncResponse {
        var lines = answer.body.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
        return try SyncWire.readResponse({ lines.next() })
    }
}

/// From `a` to `b`, in ms (negative when `b` came first).
func milliseconds(_ a: ContinuousClock.Instant, _ b: ContinuousClock.Instant) -> Double {
    let d = a.duration(to: b)
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}
