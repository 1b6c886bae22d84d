import Foundation

/// Finds the purchases a journal reverts, and if asked the items it buys
/// late, without decoding it: a byte search for the revert's type name (and
/// the key `purchasedAt`), and only the lines that hold it decoded.
///
/// The statistics read once to the end of a journal use it to learn their
/// reverts before they fold (`SettledViews` in
/// ShopProjections), and so does `verify` (``JournalVerifier``), so that
/// neither need keep every purchase for a revert that may come. What it
/// finds is a forecast, not a verdict: the fold checks it event by event and
/// folds again the plain way if the journal reverts anything else (a line
/// that spells its type with escapes, lines appended meanwhile).
package enum RevertScan {
    /// The type as the codec writes it, quotes included.
    private static let needle = Array("\"\(EventType.purchaseReverted.rawValue)\"".utf8)
    /// The key of a purchase's own time, as the codec writes it.
    private static let lateNeedle = Array("\"purchasedAt\":".utf8)

    /// What a journal will do that a fold keeping no history must know of first.
    package struct Forecast: Hashable, Sendable {
        /// Every purchase a line reverts.
        package var reverted: Set<PurchaseID> = []
        /// Every item bought off any list with a time of its own (`purchasedAt`):
        /// a purchase recorded after the fact, which may come after the item
        /// was deleted and then needs it; empty unless asked for.
        package var lateItems: Set<ItemID> = []

        package init(reverted: Set<PurchaseID> = [], lateItems: Set<ItemID> = []) {
            self.reverted = reverted
            self.lateItems = lateItems
        }

        mutating func formUnion(_ other: Forecast) {
            reverted.formUnion(other.reverted)
            lateItems.formUnion(other.lateItems)
        }
    }

    /// Every purchase a complete line of the journal reverts (``forecast(journal:chunk:parts:lateItems:)``).
    package static func revertedPurchases(journal path: String, chunk: Int = 1 << 20, parts: Int? = nil) -> Set<PurchaseID>? {
        forecast(journal: path, chunk: chunk, parts: parts)?.reverted
    }

    /// Every purchase a complete line of the journal reverts, and with
    /// `lateItems` every item a line buys late; nil if the file
    /// cannot be read (the fold that follows says why). It is read `chunk`
    /// bytes at a time; a longer line grows the buffer. The file is cut into
    /// `parts` stretches of whole lines, searched on as many threads as there
    /// are cores, each taking the next stretch when it is done with one (the
    /// last stretch reads on to the end of the file); by default four a core
    /// for a journal of 8 MiB or more, so that a thread that starts late or
    /// runs slow holds the others up by a short stretch at most (with one
    /// stretch a core, the caller's thread waited a third of the search for
    /// the other's), and one below.
    package static func forecast(journal path: String, chunk: Int = 1 << 20, parts: Int? = nil, lateItems: Bool = false) -> Forecast? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        #if os(Linux)
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        let parts = max(parts ?? (size >= 8 << 20 ? 4 * min(ProcessInfo.processInfo.activeProcessorCount, 4) : 1), 1)
        // Where each stretch starts: just after the first newline at or after an equal share of the bytes.
        var starts = [0]
        for part in 1..<parts {
            guard let newline = firstNewline(fd, from: size / parts * part), let last = starts.last, newline + 1 > last else { continue }
            starts.append(newline + 1)
        }
        if starts.count == 1 { return search(fd, from: 0, to: nil, chunk: chunk, lateItems: lateItems) }
        // Each stretch's forecast, set by its own thread; nil where one could not be read.
        let found = Locked([Forecast?](repeating: nil, count: starts.count))
        DispatchQueue.concurrentPerform(iterations: starts.count) { [starts] part in
            let end = part + 1 < starts.count ? starts[part + 1] : nil
            let result = search(fd, from: starts[part], to: end, chunk: chunk, lateItems: lateItems)
            found.withLock { $0[part] = result }
        }
        // Every stretch's forecast in one; nil if one could not be read (`concurrentPerform` has
        // returned: every stretch has set its own).
        return found.withLock { results in
            var all = Forecast()
            for result in results {
                guard let result else { return nil }
                all.formUnion(result)
            }
            return all
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

    /// What the complete lines from `start` (where a line starts) to `end`
    /// (where one starts, or the end of the file if nil) foretell.
    private static func search(_ fd: Int32, from start: Int, to end: Int?, chunk: Int, lateItems: Bool) -> Forecast? {
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var forecast = Forecast()
        var offset = start, carried = 0
        while true {
            let want = min(buffer.count - carried, end.map { $0 - offset } ?? Int.max)
            let n = want > 0 ? pread(fd, buffer.nonEmptyBase + carried, want, off_t(offset)) : 0
            if n < 0 { if errno == EINTR { continue } else { return nil } }
            if n == 0 { return forecast }   // what is carried has no newline: no complete line
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
            let complete = UnsafeRawBufferPointer(rebasing: buffer[0..<lines])
            collect(complete, into: &forecast.reverted)
            if lateItems { collectLate(complete, into: &forecast.lateItems) }
            carried = filled - lines
            if carried > 0 { memmove(buffer.nonEmptyBase, buffer.nonEmptyBase + lines, carried) }
        }
    }

    /// Which of a needle's bytes `memchr` looks for: a capital letter that is
    /// no hex digit (the revert's `R`, the late purchase's `A`), so rare in a
    /// journal (a few type names and people's names hold one) that the C
    /// library's vector search runs far between the places where the whole
    /// needle is compared.
    /// (Any byte of the needle would find it, only more slowly: its first, if the name had no such letter.)
    private static let pivot = needle.firstIndex(of: UInt8(ascii: "R")) ?? 0
    private static let latePivot = lateNeedle.firstIndex(of: UInt8(ascii: "A")) ?? 0

    /// The offset of the first `needle` in `bytes` at or after `from`.
    private static func find(_ needle: [UInt8], pivot: Int, in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        let n = needle.count
        guard let base = bytes.baseAddress else { return nil }
        return needle.withUnsafeBufferPointer { needle in
            var at = from + pivot   // where the pivot byte would be
            while at < bytes.count, let hit = memchr(base + at, Int32(needle[pivot]), bytes.count - at) {
                let start = base.distance(to: UnsafeRawPointer(hit)) - pivot
                if start + n <= bytes.count, memcmp(base + start, needle.nonEmptyBase, n) == 0 { return start }
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
        forEvent(in: lines, holding: needle, pivot: pivot) { event in
            if case let .purchaseReverted(purchase) = event { reverted.insert(purchase) }
        }
    }

    /// Adds the items bought off any list with a `purchasedAt` by the lines of `lines`.
    package static func collectLate(_ lines: UnsafeRawBufferPointer, into items: inout Set<ItemID>) {
        forEvent(in: lines, holding: lateNeedle, pivot: latePivot) { event in
            if case let .itemPurchased(_, item, nil, _, _, _, _?, _) = event { items.insert(item) }
        }
    }

    /// Decodes each line of `lines` that holds `needle` and hands its event to `body`.
    private static func forEvent(in lines: UnsafeRawBufferPointer, holding needle: [UInt8], pivot: Int, _ body: (Event) -> Void) {
        guard let base = lines.baseAddress else { return }
        var from = 0
        while let at = find(needle, pivot: pivot, in: lines, from: from) {
            let start = (lastNewline(in: lines, before: at) ?? -1) + 1
            // Complete lines each end in a newline; past the last there is no line to decode.
            guard let newline = memchr(base + at, 0x0A, lines.count - at) else { return }
            let end = UnsafeRawPointer(newline) - base
            if case let .event(recorded)? = try? EventLineCodec.decodeLine(UnsafeRawBufferPointer(rebasing: lines[start..<end])) {
                body(recorded.event)
            }
            from = end + 1
        }
    }
}
