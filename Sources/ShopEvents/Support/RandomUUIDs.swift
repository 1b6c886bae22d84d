import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension IDGenerator {
    /// Random version-4 UUIDs, from the kernel's random bytes read 4 KiB at a time (one
    /// `read` of `/dev/urandom` for 256 ids, where Foundation's `UUID()` makes three system
    /// calls for each): what every writer uses unless a test injects another.
    ///
    /// ```swift
    /// let ids = IDGenerator.random
    /// let milk: ItemID = ids.make()
    /// ```
    public static let random = IDGenerator { RandomUUIDs.next() }
}

/// Random version-4 UUIDs, cut from the kernel's random bytes fetched 4 KiB at a time.
///
/// Foundation's `UUID()` on Linux opens `/dev/urandom`, reads 16 bytes and closes it: three
/// system calls, about 4 µs, for every event a writer records and every command the hub
/// takes (`strace -c` of 100,000 `UUID()`s: 300,000 calls). Here one `read` of `/dev/urandom`,
/// kept open (`arc4random_buf` on Apple platforms), fills a buffer that 256 ids are cut from:
/// the same source of randomness, fetched in bulk. The bytes are handed out under a lock, each once.
/// Below the domain (the layers' rule): the domain's own `EntityID()` keeps Foundation's
/// `UUID()`, and the writers take their ids from an injected ``IDGenerator``, by default
/// ``IDGenerator/random``, this.
enum RandomUUIDs {
    /// The bytes fetched and how many of them are handed out.
    private struct Pool: Sendable {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var used = 4096
    }

    private static let pool = Locked(Pool())

    /// A new random UUID (RFC 9562 version 4, variant 10).
    static func next() -> UUID {
        var id: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        pool.withLock { pool in
            if pool.used == pool.bytes.count {
                pool.bytes.withUnsafeMutableBytes(fill)
                pool.used = 0
            }
            let at = pool.used
            pool.used += 16
            pool.bytes.withUnsafeBytes { raw in
                withUnsafeMutableBytes(of: &id) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[at..<(at + 16)])) }
            }
        }
        id.6 = id.6 & 0x0F | 0x40   // version 4
        id.8 = id.8 & 0x3F | 0x80   // variant 10
        return UUID(uuid: id)
    }

    /// `/dev/urandom`, opened once and kept (close-on-exec): a refill is one `read`.
    private static let urandom: Int32 = open("/dev/urandom", O_RDONLY | O_CLOEXEC)

    /// Fills `buffer` (the pool's 4 KiB) with random bytes.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Glibc)
        var filled = 0
        while filled < buffer.count {
            let got = urandom >= 0 ? read(urandom, buffer.nonEmptyBase + filled, buffer.count - filled) : -1
            if got > 0 {
                filled += got
            } else if got < 0, errno == EINTR {
                continue
            } else {
                // No /dev/urandom to read: the standard library's generator, eight bytes at a time.
                var generator = SystemRandomNumberGenerator()
                while filled < buffer.count {
                    let word = generator.next()
                    withUnsafeBytes(of: word) { w in
                        let n = min(8, buffer.count - filled)
                        (buffer.nonEmptyBase + filled).copyMemory(from: w.nonEmptyBase, byteCount: n)
                        filled += n
                    }
                }
            }
        }
        #else
        guard let base = buffer.baseAddress else { return }
        arc4random_buf(base, buffer.count)
        #endif
    }
}
