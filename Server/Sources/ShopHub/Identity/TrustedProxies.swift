import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The proxies whose connections may say whose request they carry (`shop-hub serve --trusted-proxy CIDR`).
///
/// Behind a proxy every request comes from the proxy's address, so the per-address limits would count
/// every client as one. A request from a trusted address names its client in `X-Forwarded-For` (or,
/// without it, `Forwarded`'s `for=`): the client is the right-most address there that is not itself
/// trusted, since each proxy appends the address it was connected from and only the last ones were
/// written by proxies of ours. From any other address those headers are ignored: a client cannot
/// choose the address it is counted under.
///
/// ```swift
/// let proxies = try TrustedProxies(["10.0.0.0/8", "::1"])
/// print(proxies.client(peer: "10.0.0.7", forwardedFor: ["203.0.113.9, 10.0.0.3"], forwarded: []))   // 203.0.113.9
/// print(proxies.client(peer: "198.51.100.4", forwardedFor: ["203.0.113.9"], forwarded: []))          // 198.51.100.4
/// ```
public struct TrustedProxies: Sendable, Hashable {
    /// One network: an address and how many of its leading bits are fixed.
    public struct Network: Sendable, Hashable, CustomStringConvertible {
        let address: IPAddress
        let bits: Int

        /// `10.0.0.0/8`, `2001:db8::/32`, or an address alone (all its bits); nil for anything else.
        public init?(_ text: some StringProtocol) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(parts[0]) else { return nil }
            let width = address.bytes.count * 8
            var bits = width
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...width).contains(given), parts[1].allSatisfy(\.isNumber) else { return nil }
                bits = given
            }
            self.address = address
            self.bits = bits
        }

        func contains(_ other: IPAddress) -> Bool {
            guard other.bytes.count == address.bytes.count else { return false }
            var left = bits
            for (a, b) in zip(address.bytes, other.bytes) {
                guard left > 0 else { return true }
                let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
                if a & mask != b & mask { return false }
                left -= 8
            }
            return true
        }

        public var description: String { "\(address)/\(bits)" }
    }

    public private(set) var networks: [Network] = []

    /// None: every request is counted under the address it came from.
    public init() {}

    /// `texts` as `--trusted-proxy` takes them; a ``HubError`` (`bad_request`) naming the first that is no network.
    public init(_ texts: [String]) throws {
        for text in texts {
            guard let network = Network(text) else {
                throw HubError.badRequest("\(HubError.bounded(text)) is not an address or a network (10.0.0.0/8, 192.0.2.7, 2001:db8::/32, ::1)")
            }
            networks.append(network)
        }
    }

    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` (as a socket names it: `127.0.0.1`, `::1`, `::ffff:10.0.0.1`) is a trusted proxy's.
    public func contains(_ address: String?) -> Bool {
        guard let address, let parsed = IPAddress(address) else { return false }
        return contains(parsed)
    }

    func contains(_ address: IPAddress) -> Bool { networks.contains { $0.contains(address) } }

    /// The client a request stands for, in the form the per-address limits count (`2001:db8::1`, `192.0.2.7`):
    /// `peer` itself unless it is trusted (as it is given, when no proxy is trusted); then the right-most address of `X-Forwarded-For` (each of the
    /// header's lines given, in order) that is not trusted, or of `Forwarded`'s `for=` when there is no
    /// `X-Forwarded-For`; the left-most if all are trusted. An entry that is no address (`unknown`, an
    /// obfuscated name) ends the walk: the request counts under the trusted proxy that wrote it.
    public func client(peer: String?, forwardedFor: [String], forwarded: [String]) -> String {
        guard let peer else { return "unknown" }
        guard !networks.isEmpty, let address = IPAddress(peer) else { return peer }
        guard contains(address) else { return address.description }
        let chain: [Substring]
        if !forwardedFor.isEmpty {
            chain = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingBlanks }.filter { !$0.isEmpty }
        } else {
            chain = forwarded.flatMap { $0.split(separator: ",") }.compactMap(Self.forValue)
        }
        var client = address
        for entry in chain.reversed() {
            guard let hop = IPAddress(hostOf: entry) else { break }
            client = hop
            if !contains(hop) { break }
        }
        return client.description
    }

    /// The `for=` of one element of `Forwarded` (`for=192.0.2.60;proto=http`, `For="[2001:db8::1]:4711"`), unquoted.
    static func forValue(_ element: Substring) -> Substring? {
        for pair in element.split(separator: ";") {
            let pair = pair.trimmingBlanks
            guard let equals = pair.firstIndex(of: "="), pair[..<equals].lowercased() == "for" else { continue }
            var value = pair[pair.index(after: equals)...].trimmingBlanks
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            return value
        }
        return nil
    }
}

/// An IPv4 or IPv6 address: 4 or 16 bytes (an IPv4-mapped IPv6 address is its IPv4 address).
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    /// `192.0.2.7`, `2001:db8::1`, `::ffff:192.0.2.7`; nil for anything else.
    init?(_ text: some StringProtocol) {
        let text = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        bytes = all[0..<10].allSatisfy { $0 == 0 } && all[10] == 0xFF && all[11] == 0xFF ? Array(all[12...]) : all
    }

    /// The address of a host as a forwarding header writes it: `192.0.2.7`, `192.0.2.7:4711`,
    /// `2001:db8::1`, `[2001:db8::1]`, `[2001:db8::1]:4711`.
    init?(hostOf entry: some StringProtocol) {
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return nil }
            self.init(entry[entry.index(after: entry.startIndex)..<close])
        } else if entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":") {
            self.init(entry[..<colon])
        } else {
            self.init(entry)
        }
    }

    var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
