import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// `hub-bench slow`: a hub under a slow-connection attack from one address. `GET /healthz`, each over a
// fresh connection from 127.0.0.1, paced for a while with no attack, then again while 2,000 connections
// from 127.0.0.2 trickle a request head, as slowloris does: every round (15 s, its default) a byte more on
// each, and each the hub closed (its deadline, or refused over its per-address cap) opened again. The hub runs with its own limits (`--connections-per-address N` sets the cap, for a comparison).
// Its resident memory and open files are sampled every second. Not a test.
//
//   Server/.build/release/HubBench slow [--connections 2000] [--seconds 25] [--every-ms 10] [--round 15]
//       [--connections-per-address N] [--shop-hub Server/.build/release/shop-hub]

struct SlowBench {
    var shopHub = "Server/.build/release/shop-hub"
    var connections = 2_000
    /// How long each run asks `/healthz`, in seconds.
    var runSeconds = 25.0
    /// The pause between two `/healthz`, in ms.
    var everyMs = 10
    /// The hub's cap; its default if nil.
    var cap: Int?
    /// Seconds between the attack's rounds.
    var round = 15.0

    init(_ arguments: [String]) throws {
        var given = BenchArguments(arguments)
        if let v = given.value("--shop-hub") { shopHub = v }
        if let v = given.value("--connections").flatMap(Int.init) { connections = max(1, v) }
        if let v = given.value("--seconds").flatMap(Double.init) { runSeconds = min(600, max(1, v)) }
        if let v = given.value("--every-ms").flatMap(Int.init) { everyMs = max(0, v) }
        cap = given.value("--connections-per-address").flatMap(Int.init)
        if let v = given.value("--round").flatMap(Double.init) { round = min(60, max(0.1, v)) }
        guard given.words.isEmpty else { throw BenchFailure(description: "hub-bench slow: unknown arguments \(given.words)") }
    }

    func run() async throws {
        try await onThreadOfItsOwn { try measureAll() }
    }

    private func measureAll() throws {
        OpenBench.raiseFileLimit()
        let folder = try benchFolder("slow")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try Server(shopHub, data: folder + "/hub-data", connections: cap.map { ["--connections-per-address", "\($0)"] } ?? [])
        defer { server.stop() }
        let pid = server.process.processIdentifier
        say("hub-bench slow: \(connections) slow connections from 127.0.0.2 (a round every \(round) s), /healthz from 127.0.0.1 every \(everyMs) ms for \(Int(runSeconds)) s a run, "
            + "cap \(cap.map(String.init) ?? "the hub's default"); load average \(OpenBench.loadAverage())")
        let started = ProcessFigures(pid: pid)
        let quiet = try healthz(port: server.port, pid: pid)
        progress("no attack: \(quiet.latencies.count) × /healthz")
        let attack = SlowAttack(port: server.port, count: connections, source: "127.0.0.2", round: round)
        let attacker = Thread { attack.run() }
        attacker.start()
        Thread.sleep(forTimeInterval: 2)   // the connections opened
        let loaded = try healthz(port: server.port, pid: pid)
        attack.stop()
        while !attack.finished { Thread.sleep(forTimeInterval: 0.05) }
        progress("under attack: \(loaded.latencies.count) × /healthz")
        Thread.sleep(forTimeInterval: 2)
        let after = ProcessFigures(pid: pid)
        func f(_ ms: Double) -> String { String(format: "%.2f", ms) }
        func row(_ name: String, _ values: [Double]) {
            say("| \(name) | \(values.count) | \(f(percentile(values, 0.5))) | \(f(percentile(values, 0.99))) | \(f(values.max() ?? 0)) |")
        }
        say("")
        say("| GET /healthz, fresh connection | n | p50 ms | p99 ms | max ms |")
        say("|---|---:|---:|---:|---:|")
        row("no attack", quiet.latencies)
        row("\(connections) slow connections from one address", loaded.latencies)
        say("")
        let mib = { (kib: Double) in String(format: "%.1f", kib / 1024) }
        say("| hub process | RSS MiB | open files |")
        say("|---|---:|---:|")
        say("| started | \(mib(started.residentKiB)) | \(started.files) |")
        say("| no attack, highest | \(mib(quiet.peakKiB)) | \(quiet.peakFiles) |")
        say("| under attack, highest | \(mib(loaded.peakKiB)) | \(loaded.peakFiles) |")
        say("| 2 s after the attack | \(mib(after.residentKiB)) | \(after.files) |")
        say("")
        let stats = attack.counts
        say("attack: \(stats.opened) connections opened, \(stats.refused) answered 503 too_many_connections, "
            + "\(stats.closed) closed by the hub without an answer (a deadline), \(stats.failed) refused by the kernel; "
            + "/healthz p99 under attack ÷ none: \(String(format: "%.2f×", percentile(loaded.latencies, 0.99) / max(1e-9, percentile(quiet.latencies, 0.99))))")
    }

    /// `/healthz` every `everyMs` for `runSeconds`, each over a fresh connection: ms each, and the hub's highest RSS and open files.
    private func healthz(port: Int, pid: Int32) throws -> (latencies: [Double], peakKiB: Double, peakFiles: Int) {
        let request = HubConnection.request("GET", "/healthz")
        let start = ContinuousClock.now
        var latencies: [Double] = []
        var peakKiB = 0.0, peakFiles = 0
        var sampled = ContinuousClock.now - .seconds(2)
        // At most one a ms for the whole run: bounded in count as in time.
        while seconds(since: start) < runSeconds, latencies.count < Int(runSeconds * 1000) {
            if sampled.duration(to: .now) >= .seconds(1) {
                let figures = ProcessFigures(pid: pid)
                peakKiB = max(peakKiB, figures.residentKiB)
                peakFiles = max(peakFiles, figures.files)
                sampled = .now
            }
            let began = ContinuousClock.now
            let connection = try HubConnection(port: port)
            defer { connection.close() }
            let answer = try connection.exchange(request)
            guard answer.status == 200 else { throw BenchFailure(description: "/healthz answered \(answer.status)") }
            latencies.append(seconds(since: began) * 1000)
            if everyMs > 0 { usleep(useconds_t(everyMs * 1000)) }
        }
        return (latencies, peakKiB, peakFiles)
    }
}

/// `count` connections from `source` that each send a request head a byte a round and never finish it;
/// one the hub closes (or refuses) is opened again at the next round. Until ``stop()``; then all are closed.
final class SlowAttack: Sendable {
    struct Counts: Sendable {
        var opened = 0, refused = 0, closed = 0, failed = 0
    }

    let port: Int
    let count: Int
    let source: String
    let round: Double
    private let state = Mutex<(stopped: Bool, finished: Bool, counts: Counts)>((false, false, Counts()))

    init(port: Int, count: Int, source: String, round: Double) {
        self.round = round
        self.port = port
        self.count = count
        self.source = source
    }

    func stop() { state.withLock { $0.stopped = true } }
    var finished: Bool { state.withLock { $0.finished } }
    var counts: Counts { state.withLock { $0.counts } }

    /// What each connection trickles: a head that never ends.
    private static let head = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "z"), count: 4_000)

    func run() {
        var fds = [Int32](repeating: -1, count: count)
        var sent = [Int](repeating: 0, count: count)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        defer {
            for fd in fds where fd >= 0 { close(fd) }
            state.withLock { $0.finished = true }
        }
        while !state.withLock({ $0.stopped }) {
            let tick = ContinuousClock.now
            var opened = 0, failed = 0
            for index in fds.indices {
                if fds[index] < 0 {
                    fds[index] = open()
                    sent[index] = 0
                    if fds[index] < 0 { failed += 1 } else { opened += 1 }
                    continue
                }
                let at = sent[index] % Self.head.count
                let n = Self.head[at...at].withUnsafeBytes { send(fds[index], $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                if n == 1 { sent[index] += 1 }
            }
            state.withLock { $0.counts.opened += opened; $0.counts.failed += failed }
            // Until the next round (or the stop): whatever the hub says or does to a connection.
            let next = tick + .milliseconds(Int(round * 1000))
            while ContinuousClock.now < next, !state.withLock({ $0.stopped }) {
                var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
                var refused = 0, closed = 0
                for index in polls.indices where polls[index].fd >= 0 && polls[index].revents != 0 {
                    let got = buffer.withUnsafeMutableBytes { recv(fds[index], $0.baseAddress, $0.count, 0) }
                    if got > 0, buffer[0..<min(got, 12)].elementsEqual("HTTP/1.1 503".utf8.prefix(min(got, 12))) { refused += 1 } else { closed += 1 }
                    close(fds[index])
                    fds[index] = -1
                }
                state.withLock { $0.counts.refused += refused; $0.counts.closed += closed }
            }
        }
    }

    /// A non-blocking connection from `source` to the hub, closed with a reset (no TIME_WAIT left behind); -1 if none.
    private func open() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var one: Int32 = 1
        // The port is chosen at connect, with the destination known: 2,000 sockets a second do not run out of ports.
        setsockopt(fd, Int32(IPPROTO_IP), 24 /* IP_BIND_ADDRESS_NO_PORT */, &one, socklen_t(MemoryLayout<Int32>.size))
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 || errno == EINPROGRESS else {
            close(fd)
            return -1
        }
        return fd
    }
}
