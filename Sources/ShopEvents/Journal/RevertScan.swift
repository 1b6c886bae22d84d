import Foundation

/// Finds the purchases a journal reverts without decoding it: a byte search
/// for the revert's type name, and only the lines that hold it decoded.
///
/// The statistics read once to the end of a journal use it to learn their
/// reverts before they fold (`HouseholdViews(settling:)` in
/// ShopProjections), and so does `verify` (``JournalVerifier``), so that
/// neither need keep every purchase for a revert that may come. What it
/// finds is a forecast, not a verdict: the fold checks it event by event and
/// folds again the plain way if the journal reverts anything else (a line
/// that spells its type with escapes, lines appended meanwhile).
package enum RevertScan {
    /// The type as the codec writes it, quotes included.
    private static let needle = Array("\"\(EventType.purchaseReverted.rawValue)\"".utf8)
    /// Every purchase a complete line of the journal reverts; nil if the file
    /// cannot be read (the fold that follows says why). It is read `chunk`
    /// bytes at a time; a longer line grows the buffer. The file is cut into
    /// `parts` stretches of whole lines, each searched on a thread of its own
    /// (the last reads on to the end of the file); by default one a core for
    /// a journal of 8 MiB or more, one below.
    package static func revertedPurchases(journal path: String, chunk: Int = 1 << 20, parts: Int? = nil) -> Set<PurchaseID>? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        #if os(Linux)
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        let parts = max(parts ?? (size >= 8 << 20 ? min(ProcessInfo.processInfo.activeProcessorCount, 4) : 1), 1)
        // Where each stretch starts: just after the first newline at or after an equal share of the bytes.
        var starts = [0]
        for part in 1..<parts {
            guard let newline = firstNewline(fd, from: size / parts * part), newline + 1 > starts.last! else { continue }
            starts.append(newline + 1)
        }
        if starts.count == 1 { return search(fd, from: 0, to: nil, chunk: chunk) }
        let found = Found(count: starts.count)
        DispatchQueue.concurrentPerform(iterations: starts.count) { [starts] part in
            let end = part + 1 < starts.count ? starts[part + 1] : nil
            found.set(part, search(fd, from: starts[part], to: end, chunk: chunk))
        }
        return found.union()
    }

    /// The results of the stretches, each set by its own thread.
    private final class Found: @unchecked Sendable {
        // @unchecked: `results` is read and written only under `lock`.
        private let lock = NSLock()
        private var results: [Set<PurchaseID>??]
        init(count: Int) { results = Array(repeating: nil, count: count) }
        func set(_ part: Int, _ result: Set<PurchaseID>?) { lock.withLock { results[part] = .some(result) } }
        /// Every stretch's purchases; nil if one could not be read.
        func union() -> Set<PurchaseID>? {
            lock.withLock {
                var all = Set<PurchaseID>()
                for case let result?? in results { all.formUnion(result) }
                return results.allSatisfy { $0 != nil && $0! != nil } ? all : nil
            }
        }
    }

    /// The offset of the first newline at or after `offset`; nil if there is none.
    private static func firstNewline(_ fd: Int32, from offset: Int) -> Int? {
        var block = [UInt8](repeating: 0, count: 64 << 10)
        var at = offset
        while true {
            let n = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(at)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            if let newline = block[0..<n].firstIndex(of: 0x0A) { return at + newline }
            at += n
        }
    }

    /// The purchases reverted by the complete lines from `start` (where a line
    /// starts) to `end` (where one starts, or the end of the file if nil).
    private static func search(_ fd: Int32, from start: Int, to end: Int?, chunk: Int) -> Set<PurchaseID>? {
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var reverted = Set<PurchaseID>()
        var offset = start, carried = 0
        while true {
            let want = min(buffer.count - carried, end.map { $0 - offset } ?? Int.max)
            let n = want > 0 ? pread(fd, buffer.baseAddress! + carried, want, off_t(offset)) : 0
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

    /// Which of the needle's bytes `memchr` looks for: its `R`, a capital
    /// letter that is no hex digit, so rare in a journal (a few type names and
    /// people's names hold one) that the C library's vector search runs far
    /// between the places where the whole needle is compared.
    private static let pivot = needle.firstIndex(of: UInt8(ascii: "R"))!

    /// The offset of the first ``needle`` in `bytes` at or after `from`.
    private static func find(in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        let n = needle.count, pivot = Self.pivot
        guard let base = bytes.baseAddress else { return nil }
        return needle.withUnsafeBufferPointer { needle in
            var at = from + pivot   // where the pivot byte would be
            while at < bytes.count, let hit = memchr(base + at, Int32(needle[pivot]), bytes.count - at) {
                let start = base.distance(to: UnsafeRawPointer(hit)) - pivot
                if start + n <= bytes.count, memcmp(base + start, needle.baseAddress!, n) == 0 { return start }
                at = start + pivot + 1
            }
            return nil
        }
    }

    /// The offset of the last newline in `bytes` before `end`, if any (lines are short: a backward look).
    private static func lastNewline(in bytes: UnsafeRawBufferPointer, before end: Int) -> Int? {
        var at = end - 1
        while at >= 0, bytes[at] != 0x0A { at -= 1 }
        return at >= 0 ? at : nil
    }

    /// Adds the purchases reverted by the lines of `lines` (complete lines, each ending in a newline).
    package static func collect(_ lines: UnsafeRawBufferPointer, into reverted: inout Set<PurchaseID>) {
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
