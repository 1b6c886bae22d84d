import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An answer of the hub, read whole: its status and body (it must carry `Content-Length`).
struct HTTPAnswer {
    var status: Int
    var body: [UInt8]
}

/// One HTTP/1.1 keep-alive connection to the hub on loopback, as a phone holds one (`hub-bench open`):
/// requests written whole, answers read as their bytes arrive — by a `poll` over many connections
/// (``receive()``), or waited for on this one (``answer(within:)``). Non-blocking once connected.
final class HubConnection {
    let fd: Int32
    private var input: [UInt8] = []

    init(port: Int) throws {
        fd = try connectLoopback(port: port)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    func close() { Glibc.close(fd) }

    /// A request's bytes: `method path`, the bearer token if any, a JSON or NDJSON body if any.
    static func request(_ method: String, _ path: String, token: String? = nil, body: [UInt8]? = nil) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        var bytes = Array((head + "\r\n").utf8)
        if let body { bytes += body }
        return bytes
    }

    /// Writes `bytes` whole (waiting for room in the socket if it is full).
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EAGAIN || errno == EINTR {
                var one = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&one, 1, 10_000)
                continue
            }
            guard n > 0 else { throw BenchFailure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Reads what the socket holds: the next answer once it is whole, else nil.
    func receive() throws -> HTTPAnswer? {
        if let answer = try Self.take(&input) { return answer }
        var closed = false
        withUnsafeTemporaryAllocation(byteCount: 16_384, alignment: 1) { buffer in
            while true {
                let got = recv(fd, buffer.baseAddress, buffer.count, 0)
                if got < 0, errno == EAGAIN || errno == EINTR { return }
                guard got > 0 else {
                    closed = true
                    return
                }
                input.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
                if got < buffer.count { return }
            }
        }
        if let answer = try Self.take(&input) { return answer }
        if closed { throw BenchFailure(description: "the hub closed a connection") }
        return nil
    }

    /// The next answer, waited for at most `seconds`.
    func answer(within seconds: Int32 = 10) throws -> HTTPAnswer {
        while true {
            if let answer = try receive() { return answer }
            var one = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&one, 1, seconds * 1000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw BenchFailure(description: "no answer from the hub in \(seconds) s") }
        }
    }

    /// `request` written, its answer read whole.
    func exchange(_ request: [UInt8]) throws -> HTTPAnswer {
        try send(request)
        return try answer()
    }

    /// Removes the first whole answer from `input`, if it is there.
    static func take(_ input: inout [UInt8]) throws -> HTTPAnswer? {
        guard input.count >= 4, let end = (0...(input.count - 4)).first(where: {
            input[$0] == 13 && input[$0 + 1] == 10 && input[$0 + 2] == 13 && input[$0 + 3] == 10
        }) else { return nil }
        let lines = String(decoding: input[..<end], as: UTF8.self).split(separator: "\r\n")
        guard let status = lines.first.flatMap({ Int($0.split(separator: " ").dropFirst().first ?? "") }) else {
            throw BenchFailure(description: "an answer that is not HTTP: \(String(decoding: input.prefix(80), as: UTF8.self))")
        }
        guard let length = lines.dropFirst().first(where: { $0.lowercased().hasPrefix("content-length:") })
            .flatMap({ Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }) else {
            throw BenchFailure(description: "an answer without Content-Length: \(String(decoding: input[..<end], as: UTF8.self))")
        }
        guard input.count >= end + 4 + length else { return nil }
        let answer = HTTPAnswer(status: status, body: Array(input[(end + 4)..<(end + 4 + length)]))
        input.removeSubrange(0..<(end + 4 + length))
        return answer
    }
}

/// A TCP connection to 127.0.0.1:`port`, with `TCP_NODELAY` (a request goes out as it is written): its socket.
func connectLoopback(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchFailure(description: "socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        let why = String(cString: strerror(errno))
        Glibc.close(fd)
        throw BenchFailure(description: "connect to 127.0.0.1:\(port): \(why)")
    }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return fd
}
