import Foundation
import ShopEvents

/// Finds the purchases a journal reverts without decoding it: a byte search
/// for the revert's type name, and only the lines that hold it decoded.
///
/// The statistics read once to the end of a journal use it to learn their
/// reverts before they fold (``HouseholdViews/init(settling:)``), so that
/// they need not keep every purchase for a revert that may come. What it
/// finds is a forecast, not a verdict: the fold checks it event by event and
/// folds again the plain way if the journal reverts anything else (a line
/// that spells its type with escapes, lines appended meanwhile).
enum RevertScan {
    /// The type as the codec writes it, quotes included.
    private static let needle = Array("\"\(EventType.purchaseReverted.rawValue)\"".utf8)
    /// Every purchase a complete line of the journal reverts; nil if the file
    /// cannot be read (the fold that follows says why). It is read `chunk`
    /// bytes at a time; a longer line grows the buffer.
    static func revertedPurchases(journal path: String, chunk: Int = 4 << 20) -> Set<PurchaseID>? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        #if os(Linux)
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var reverted = Set<PurchaseID>()
        var offset = 0, carried = 0
        while true {
            let n = pread(fd, buffer.baseAddress! + carried, buffer.count - carried, off_t(offset))
            if n < 0 { if errno == EINTR { continue } else { return nil } }
            if n == 0 { return reverted }   // what is carried has no newline: no complete line
            offset += n
            let filled = carried + n
            guard let lastNewline = lastNewline(in: UnsafeRawBufferPointer(rebasing: buffer[0..<filled]), before: filled) else {
                carried = filled
                if filled == buffer.count {   // a line longer than the buffer
                    let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
                    bigger.copyMemory(from: UnsafeRawBufferPointer(buffer))
                    buffer.deallocate()
                    buffer = bigger
                }
                continue
            }
            let lines = lastNewline + 1
            collect(UnsafeRawBufferPointer(rebasing: buffer[0..<lines]), into: &reverted)
            carried = filled - lines
            if carried > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + lines, carried) }
        }
    }

    /// How far the search may move on when the byte under the needle's last is this one (Horspool).
    private static let shifts: [Int] = {
        var shifts = [Int](repeating: needle.count, count: 256)
        for (at, byte) in needle.dropLast().enumerated() { shifts[Int(byte)] = needle.count - 1 - at }
        return shifts
    }()

    /// The offset of the first ``needle`` in `bytes` at or after `from`.
    private static func find(in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        let n = needle.count, last = needle[n - 1]
        return needle.withUnsafeBufferPointer { needle in
            shifts.withUnsafeBufferPointer { shifts in
                var at = from
                while at + n <= bytes.count {
                    let byte = bytes[at + n - 1]
                    if byte == last, memcmp(bytes.baseAddress! + at, needle.baseAddress!, n - 1) == 0 { return at }
                    at += shifts[Int(byte)]
                }
                return nil
            }
        }
    }

    /// The offset of the last newline in `bytes` before `end`, if any (lines are short: a backward look).
    private static func lastNewline(in bytes: UnsafeRawBufferPointer, before end: Int) -> Int? {
        var at = end - 1
        while at >= 0, bytes[at] != 0x0A { at -= 1 }
        return at >= 0 ? at : nil
    }

    /// Adds the purchases reverted by the lines of `lines` (complete lines, each ending in a newline).
    static func collect(_ lines: UnsafeRawBufferPointer, into reverted: inout Set<PurchaseID>) {
        guard let base = lines.baseAddress else { return }
        var from = 0
        while let at = find(in: lines, from: from) {
            let start = (lastNewline(in: lines, before: at) ?? -1) + 1
            let end = UnsafeRawPointer(memchr(base + at, 0x0A, lines.count - at)!) - base
            if case let .event(recorded)? = try? EventLineCodec.decodeLine(UnsafeRawBufferPointer(rebasing: lines[start..<end])),
               case let .purchaseReverted(purchase) = recorded.event {
                reverted.insert(purchase)
            }
            from = end + 1
        }
    }
}
