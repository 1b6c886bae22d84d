import Foundation
import ShopEvents
#if canImport(Glibc)
import Glibc
#endif

// The 32 devices of `hub-bench postgres`, driven from one thread over plain sockets.
//
// On this 2-core machine the load generator shares the cores with the hub and the
// database, so whatever it spends is taken from what is measured. AsyncHTTPClient
// took a quarter of both cores at 2,500 pushes/s (`perf record -a`: 200 µs of CPU a
// push); pgbench, the ceiling the hub is compared with, drives its clients from a
// few threads of C. This does what pgbench does: each device is one keep-alive
// HTTP/1.1 connection; one thread `poll`s them all, writes a device's next push as
// soon as its answer is in, and reads each answer whole. Each push is a new body in
// the sync protocol's wire form (what `HTTPSyncTransport` sends) with new command
// ids, and each answer is read by `SyncWire.readResponse` and must be `200` with
// every command accepted, as before.

/// One device of the load: its socket, and the push it has on the wire.
private struct SocketDevice {
    let fd: Int32
    /// `POST /v1/households/H/sync` and the headers up to `Content-Length: `.
    let head: [UInt8]
    var output: [UInt8] = []
    var written = 0
    var input: [UInt8] = []
    var began = ContinuousClock.now
    var pushes = 0
    var busy = false
}

/// The devices' connections, opened once a cell (a phone keeps its connection) and closed by ``close()``.
final class SocketLoad: @unchecked Sendable {
    // @unchecked: its state is used by one thread at a time: the main task's (open, close), or a run's own thread while the main task awaits it.
    struct Target: Sendable {
        var port: Int
        var household: HouseholdID
        var token: String
    }

    private var devices: [SocketDevice] = []
    /// What a `read` fills, made once.
    private var chunk = [UInt8](repeating: 0, count: 16_384)

    init(_ targets: [Target]) throws {
        for target in targets {
            let fd = try connectLoopback(port: target.port)
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            let head = "POST /v1/households/\(target.household)/sync HTTP/1.1\r\nHost: 127.0.0.1:\(target.port)\r\n"
                + "Authorization: Bearer \(target.token)\r\nContent-Type: application/x-ndjson\r\nContent-Length: "
            devices.append(SocketDevice(fd: fd, head: Array(head.utf8)))
        }
    }

    func close() {
        for device in devices { Glibc.close(device.fd) }
        devices = []
    }

    /// Pushes of `size` commands from every device until `span` seconds have passed; the pushes on
    /// the wire then are answered and counted. Every push's latency in ms, and the commands/s.
    func run(_ span: Double, size: Int, run: String) async throws -> (rate: Double, latencies: [Double]) {
        try await onThreadOfItsOwn { [self] in try self.drive(span, size: size, run: run) }
    }

    private func drive(_ span: Double, size: Int, run: String) throws -> (rate: Double, latencies: [Double]) {
        let start = ContinuousClock.now
        let deadline = start + .nanoseconds(Int64(span * 1e9))
        var latencies: [Double] = []
        latencies.reserveCapacity(Int(span * 20_000))
        var commands = 0
        var polls = devices.map { pollfd(fd: $0.fd, events: 0, revents: 0) }
        for index in devices.indices { try send(index, size: size, run: run) }
        while devices.contains(where: \.busy) {
            for index in devices.indices {
                polls[index].events = devices[index].busy ? Int16(devices[index].written < devices[index].output.count ? POLLOUT : POLLIN) : 0
            }
            let ready = poll(&polls, nfds_t(polls.count), 10_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw BenchFailure(description: "no answer from the hub in 10 s") }
            for index in devices.indices where polls[index].revents != 0 {
                if devices[index].written < devices[index].output.count {
                    try flush(index)
                    continue
                }
                guard try receive(index) else { continue }
                latencies.append(seconds(since: devices[index].began) * 1000)
                commands += size
                devices[index].busy = false
                if ContinuousClock.now < deadline { try send(index, size: size, run: run) }
            }
        }
        return (Double(commands) / seconds(since: start), latencies)
    }

    /// Starts the device's next push.
    private func send(_ index: Int, size: Int, run: String) throws {
        let n = devices[index].pushes
        devices[index].pushes += 1
        let body = SyncWire.encode(.push(commands: createItems(size, prefix: "d\(index) \(size) \(run) \(n)")))
        var output = devices[index].head
        output.append(contentsOf: "\(body.count)\r\n\r\n".utf8)
        output.append(contentsOf: body)
        devices[index].output = output
        devices[index].written = 0
        devices[index].input.removeAll(keepingCapacity: true)
        devices[index].began = .now
        devices[index].busy = true
        try flush(index)
    }

    private func flush(_ index: Int) throws {
        while devices[index].written < devices[index].output.count {
            let fd = devices[index].fd, from = devices[index].written
            let sent = devices[index].output.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return 0 }   // never: the loop runs while bytes are left
                return write(fd, base + from, bytes.count - from)
            }
            if sent < 0, errno == EAGAIN || errno == EINTR { return }
            guard sent > 0 else { throw BenchFailure(description: "writing a push: \(String(cString: strerror(errno)))") }
            devices[index].written += sent
        }
    }

    /// Reads what the socket holds; true once the answer is whole (and checked).
    private func receive(_ index: Int) throws -> Bool {
        let fd = devices[index].fd
        while true {
            let got = chunk.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else { return 0 }   // never: the chunk is 16 KiB
                return read(fd, base, bytes.count)
            }
            if got < 0, errno == EAGAIN || errno == EINTR { break }
            guard got > 0 else { throw BenchFailure(description: "the hub closed a device's connection") }
            devices[index].input.append(contentsOf: chunk[0..<got])
            if got < chunk.count { break }
        }
        return try Self.answer(devices[index].input)
    }

    /// True once `input` holds a whole answer with `Content-Length` (and it is `200` with every
    /// command accepted); false while more is to come. Read from the bytes, as pgbench's C reads its
    /// answers: what the load generator spends is taken from the hub and the database it measures.
    static func answer(_ input: [UInt8]) throws -> Bool {
        guard let end = headEnd(input) else { return false }
        var status: Int?
        var length: Int?
        var lineStart = 0
        while lineStart < end {
            var lineEnd = lineStart
            while lineEnd < end, input[lineEnd] != 13 { lineEnd += 1 }
            let line = input[lineStart..<lineEnd]
            if lineStart == 0 {
                // HTTP/1.1 200 OK
                let fields = line.split(separator: 32, maxSplits: 2)
                if fields.count >= 2 { status = number(fields[1]) }
            } else if let colon = line.firstIndex(of: 58),
                      line[lineStart..<colon].lazy.map({ (65...90).contains($0) ? $0 + 32 : $0 }).elementsEqual("content-length".utf8) {
                length = number(line[(colon + 1)...].drop { $0 == 32 || $0 == 9 })
            }
            lineStart = lineEnd + 2
        }
        guard let status else {
            throw BenchFailure(description: "an answer that is not HTTP: \(String(decoding: input.prefix(80), as: UTF8.self))")
        }
        guard let length else {
            throw BenchFailure(description: "an answer without Content-Length (hub-bench reads only those): \(String(decoding: input[..<end], as: UTF8.self))")
        }
        let bodyStart = end + 4
        guard input.count >= bodyStart + length else { return false }
        var answerLines = input[bodyStart..<(bodyStart + length)].split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
        let answer = try SyncWire.readResponse({ answerLines.next() })
        guard status == 200, case let .results(results) = answer, results.allSatisfy(\.ok) else {
            throw BenchFailure(description: "a push was refused: HTTP \(status): \(answer)")
        }
        return true
    }

    /// Where the head's blank line (CR LF CR LF) starts.
    private static func headEnd(_ input: [UInt8]) -> Int? {
        guard input.count >= 4 else { return nil }
        for at in 0...(input.count - 4) where input[at] == 13 && input[at + 1] == 10 && input[at + 2] == 13 && input[at + 3] == 10 {
            return at
        }
        return nil
    }

    private static func number(_ digits: some Collection<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 48) }
    }
}
