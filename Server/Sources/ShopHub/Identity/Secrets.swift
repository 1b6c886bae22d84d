import Foundation
import ShopEvents

/// The SHA-256 of a token or a join code: all the hub keeps of either.
///
/// ```swift
/// let token = Secrets.token()
/// let kept = TokenHash(of: token)
/// print(kept.matches(TokenHash(of: token)))   // true, compared in constant time
/// ```
public struct TokenHash: Hashable, Sendable, CustomStringConvertible {
    public let digest: SHA256Digest

    public init(of secret: String) { digest = SHA256.hash(Array(secret.utf8)) }
    init(digest: SHA256Digest) { self.digest = digest }
    public init?(hex: String) {
        guard let digest = SHA256Digest(hex: hex) else { return nil }
        self.digest = digest
    }

    public var hex: String { digest.hex }
    public var description: String { hex }

    /// Equal, in time that does not depend on where the two differ.
    public func matches(_ other: TokenHash) -> Bool {
        let a = digest.words, b = other.digest.words
        let difference = (a.0 ^ b.0) | (a.1 ^ b.1) | (a.2 ^ b.2) | (a.3 ^ b.3) | (a.4 ^ b.4) | (a.5 ^ b.5) | (a.6 ^ b.6) | (a.7 ^ b.7)
        return difference == 0
    }
}

/// New secrets, from the system's cryptographic random source
/// (`SystemRandomNumberGenerator`: `getrandom` on Linux, `arc4random` on Apple systems).
///
/// ```swift
/// print(Secrets.token().count)                       // 47: "she_" and 43 base64url characters
/// print(Secrets.canonicalCode("7kq2m x9d4f"))        // 7KQ2M-X9D4F
/// ```
public enum Secrets {
    /// A bearer token: 256 random bits, base64url without padding, after `she_`
    /// (so that a leaked one is easy to find in a log or a repository).
    public static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "she_" + text
    }

    /// An invite's id (``InviteRecord/id``): 64 random bits, 16 hex digits.
    public static func inviteID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = UInt64.random(in: .min ... .max, using: &generator)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Crockford's base 32: no I, L, O or U, so that a code read aloud or typed is hard to get wrong.
    static let codeAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// A join code: 10 symbols of 5 bits (50 random bits), as `XXXXX-XXXXX`.
    public static func joinCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let symbols = (0..<10).map { _ in codeAlphabet[Int.random(in: 0..<32, using: &generator)] }
        return String(symbols[0..<5]) + "-" + String(symbols[5...])
    }

    /// A code as typed, made canonical: case, spaces and dashes do not
    /// matter, and O, I and L read as 0, 1 and 1.
    public static func canonicalCode(_ typed: String) -> String {
        let symbols = typed.uppercased().compactMap { c -> Character? in
            switch c {
            case "-", " ": return nil
            case "O": return "0"
            case "I", "L": return "1"
            default: return c
            }
        }
        guard symbols.count == 10 else { return String(symbols) }
        return String(symbols[0..<5]) + "-" + String(symbols[5...])
    }
}

/// The hub's secret for the per-address limits: what it keeps of a client's
/// address is the HMAC-SHA256 (RFC 2104) of the address under this key, not a
/// plain hash that anyone could reverse by hashing every address.
/// Each storage keeps one key of its own with its records (`hub.key`, or a row of
/// `shop_hub_secrets`), made at random the first time.
///
/// ```swift
/// let key = AddressKey.random()
/// let kept = key.hash("203.0.113.7")
/// print(kept == key.hash("203.0.113.7"), kept == TokenHash(of: "203.0.113.7"))   // true false
/// ```
public struct AddressKey: Sendable, Hashable {
    /// 32 random bytes.
    public let bytes: [UInt8]

    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// A new key from the system's cryptographic random source.
    public static func random() -> AddressKey {
        var generator = SystemRandomNumberGenerator()
        return AddressKey(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    public var hex: String { bytes.map { String($0, radix: 16).leftPadded }.joined() }

    /// The keyed hash of a client's address that the limits count by.
    public func hash(_ address: String) -> TokenHash { TokenHash(digest: Self.hmac(key: bytes, message: Array(address.utf8))) }

    /// HMAC-SHA256 of `message` under `key` (RFC 2104: SHA-256's block is 64 bytes).
    static func hmac(key: [UInt8], message: [UInt8]) -> SHA256Digest {
        var block = key.count > 64 ? SHA256.hash(key).bytes : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256.hash(block.map { $0 ^ 0x5C } + inner.bytes)
    }
}

extension SHA256Digest {
    /// The digest's 32 bytes, in order.
    var bytes: [UInt8] {
        let w = words
        return [w.0, w.1, w.2, w.3, w.4, w.5, w.6, w.7].flatMap { word in
            [UInt8(truncatingIfNeeded: word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
    }
}

extension String {
    /// A hex byte with its leading zero.
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
