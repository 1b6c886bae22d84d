import Testing
import ShopEvents

/// The example vectors of NIST FIPS 180-4 (and its companion examples).
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func nistVectors(message: String, expected: String) {
        #expect(SHA256.hash(Array(message.utf8)).hex == expected)
    }

    /// The portable rounds and the CPU's SHA instructions (where this CPU has them) give the same digests.
    @Test(arguments: [false, true])
    func bothImplementations(extensions: Bool) {
        if extensions, !SHA256.usesCPUExtensions {
            print("skipped: this CPU has no SHA instructions that ShopEvents uses (x86-64 SHA-NI); the portable path is tested")
            return
        }
        let vectors = [
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
            (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        ]
        for (message, expected) in vectors {
            let digest = Array(message.utf8).withUnsafeBytes { SHA256.hash($0, extensions: extensions) }
            #expect(digest.hex == expected)
        }
        // Every length around the block and padding edges, against the other implementation.
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for length in 0...bytes.count {
            let other = bytes[..<length].withUnsafeBytes { SHA256.hash($0, extensions: !extensions && SHA256.usesCPUExtensions) }
            #expect(bytes[..<length].withUnsafeBytes { SHA256.hash($0, extensions: extensions) } == other, "length \(length)")
        }
    }

    /// Two messages hashed side by side give each its own digest: the NIST
    /// vectors paired, and every pair of lengths around the block and
    /// padding edges (one message running on alone when the other ends), on
    /// both paths.
    @Test(arguments: [false, true])
    func twoAtOnce(extensions: Bool) {
        if extensions, !SHA256.usesCPUExtensions {
            print("skipped: this CPU has no SHA instructions that ShopEvents uses (x86-64 SHA-NI); the portable path is tested")
            return
        }
        let abc = Array("abc".utf8), long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let (a, b) = abc.withUnsafeBytes { x in long.withUnsafeBytes { y in SHA256.hash(x, y, extensions: extensions) } }
        #expect([a.hex, b.hex] == ["ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                                   "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"])
        let bytes = (0..<260).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let other = bytes.reversed().map { $0 ^ 0x5A }
        let edges = [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 200, 260]
        for first in edges {
            for second in 0...bytes.count {
                let pair = bytes[..<first].withUnsafeBytes { x in other[..<second].withUnsafeBytes { y in SHA256.hash(x, y, extensions: extensions) } }
                let alone = (SHA256.hash(bytes[..<first]), SHA256.hash(other[..<second]))
                #expect(pair == alone, "lengths \(first) and \(second)")
                let swapped = other[..<second].withUnsafeBytes { y in bytes[..<first].withUnsafeBytes { x in SHA256.hash(y, x, extensions: extensions) } }
                #expect(swapped == (alone.1, alone.0), "lengths \(second) and \(first)")
            }
        }
    }

    @Test func millionTimesA() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hasher.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func updatesInAnyChunkingGiveTheSameDigest() {
        let message = Array((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let whole = SHA256.hash(message)
        for chunk in [1, 3, 55, 56, 63, 64, 65, 127, 999] {
            var hasher = SHA256()
            var i = 0
            while i < message.count {
                hasher.update(message[i..<min(i + chunk, message.count)])
                i += chunk
            }
            #expect(hasher.finalize() == whole, "chunk \(chunk)")
        }
    }

    @Test func digestTextRoundTrips() {
        let digest = SHA256.hash(Array("abc".utf8))
        #expect(SHA256Digest(hex: digest.hex) == digest)
        #expect(SHA256Digest(hex: digest.hex.uppercased()) == digest)
        #expect(SHA256Digest(hex: "abc") == nil)
        #expect(SHA256Digest.zero.hex == String(repeating: "0", count: 64))
    }
}
