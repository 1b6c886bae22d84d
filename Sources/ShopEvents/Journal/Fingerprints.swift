import Foundation

/// 64-bit fingerprints of ids (``EntityID/fixedHash``), to learn whether any
/// was added twice, in memory that does not grow with the journal: eight
/// bytes an id where a set of the ids keeps some twenty-five, and only
/// `runLength` of them in memory at a time. Equal ids have equal
/// fingerprints, so fingerprints all distinct prove the ids distinct; a
/// repeated one says only "look closer".
///
/// A full run is sorted and written to a scratch file that has no name: on
/// Linux one made without a name (`O_TMPFILE`) beside the journal if given
/// (where the journal is, there is a disk, where the temporary directory may
/// be memory), else made in the temporary directory and unlinked at once; it
/// holds fingerprints, never events, and goes with the process.
/// ``allDistinct()`` merges the runs as it reads them back, a few pages of
/// each at a time. Where no scratch file can be made or written, the
/// fingerprints stay in memory, as many as come.
package struct Fingerprints {
    /// The run being filled (sorted in place by ``allDistinct()``).
    private var values: [UInt64] = []
    private let runLength: Int
    private let directory: String
    private let unnamedIn: String?
    /// Where the written runs are: their places in the scratch file, in fingerprints.
    private var runs: [Range<Int>] = []
    private var scratch: Scratch?
    /// No scratch file could be made or written: keep the rest in memory.
    private var inMemory = false
    /// A run already held one fingerprint twice.
    private var repeated = false

    /// Fingerprints kept `runLength` at a time in memory, the rest in a
    /// scratch file: one without a name in `unnamedIn` where the system can
    /// make one, else one in `directory` (the temporary directory by
    /// default), unlinked at once.
    package init(runLength: Int = 1 << 17, unnamedIn: String? = nil, directory: String? = nil) {
        self.runLength = max(runLength, 2)
        self.unnamedIn = unnamedIn
        self.directory = directory ?? FileManager.default.temporaryDirectory.path
    }

    package mutating func add<Kind>(_ id: EntityID<Kind>) {
        values.append(UInt64(bitPattern: Int64(id.fixedHash)))
        if values.count >= runLength, !inMemory { writeRun() }
    }

    /// How many were added.
    package var count: Int { (runs.last?.upperBound ?? 0) + values.count }

    /// How many runs went to the scratch file.
    package var runsWritten: Int { runs.count }

    /// Whether no fingerprint was added twice. Sorts those in memory in place
    /// and reads the written runs back; any that cannot be read says `false`.
    package mutating func allDistinct() -> Bool {
        guard !repeated else { return false }
        values.withUnsafeMutableBufferPointer { Self.sortInPlace($0) }
        guard Self.distinct(sorted: values) else { return false }
        guard let scratch, !runs.isEmpty else { return true }
        return Self.merge(runs, in: scratch.fd, with: values)
    }

    /// Sorts the run in memory and writes it to the end of the scratch file.
    private mutating func writeRun() {
        guard let scratch = scratch ?? unnamedIn.flatMap(Scratch.init(unnamedIn:)) ?? Scratch(in: directory) else {
            inMemory = true
            return
        }
        self.scratch = scratch
        values.withUnsafeMutableBufferPointer { Self.sortInPlace($0) }
        if !Self.distinct(sorted: values) { repeated = true }
        let start = runs.last?.upperBound ?? 0
        let written = values.withUnsafeBytes { bytes in scratch.write(bytes, at: start * 8) }
        guard written else { inMemory = true; return }
        runs.append(start..<(start + values.count))
        values.removeAll(keepingCapacity: true)
    }

    private static func distinct(sorted: [UInt64]) -> Bool {
        sorted.count < 2 || !(1..<sorted.count).contains { sorted[$0] == sorted[$0 - 1] }
    }

    /// Whether the sorted runs and the sorted `rest` have no fingerprint in
    /// common or twice: a merge of them all, keeping the smallest of each
    /// run's next fingerprints in a heap.
    private static func merge(_ runs: [Range<Int>], in fd: Int32, with rest: [UInt64]) -> Bool {
        // A few pages a run, fewer when there are many: the merge's memory stays near 1 MiB.
        let page = max(256, min(4_096, (1 << 17) / runs.count))
        var readers = runs.map { RunReader(range: $0, page: page) }
        var restAt = 0
        // (fingerprint, source): source `runs.count` is `rest`.
        var heap: [(value: UInt64, source: Int)] = []
        heap.reserveCapacity(runs.count + 1)
        func push(_ entry: (value: UInt64, source: Int)) {
            heap.append(entry)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].value < heap[parent].value else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }
        func popFirst() -> (value: UInt64, source: Int) {
            let first = heap[0]
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var parent = 0
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    var least = parent
                    if left < heap.count, heap[left].value < heap[least].value { least = left }
                    if right < heap.count, heap[right].value < heap[least].value { least = right }
                    guard least != parent else { break }
                    heap.swapAt(parent, least)
                    parent = least
                }
            }
            return first
        }
        /// The next fingerprint of `source`, `.some(nil)` at its end; nil for a read that failed.
        func next(_ source: Int) -> UInt64?? {
            if source == runs.count {
                guard restAt < rest.count else { return .some(nil) }
                restAt += 1
                return rest[restAt - 1]
            }
            return readers[source].next(fd)
        }
        for source in 0...runs.count {
            guard let first = next(source) else { return false }
            if let first { push((first, source)) }
        }
        var last: UInt64?
        while !heap.isEmpty {
            let (value, source) = popFirst()
            if value == last { return false }
            last = value
            guard let following = next(source) else { return false }
            if let following { push((following, source)) }
        }
        return true
    }

    /// One written run, read back a page at a time.
    private struct RunReader {
        var range: Range<Int>
        let page: Int
        var buffer: [UInt64] = []
        var at = 0

        init(range: Range<Int>, page: Int) {
            self.range = range
            self.page = page
        }

        /// The next fingerprint, `.some(nil)` at the run's end; nil for a read that failed.
        mutating func next(_ fd: Int32) -> UInt64?? {
            if at == buffer.count {
                guard !range.isEmpty else { return .some(nil) }
                let count = min(page, range.count)
                buffer = [UInt64](repeating: 0, count: count)
                let read = buffer.withUnsafeMutableBytes { Scratch.read(fd, into: $0, at: range.lowerBound * 8) }
                guard read else { return nil }
                range = (range.lowerBound + count)..<range.upperBound
                at = 0
            }
            at += 1
            return buffer[at - 1]
        }
    }

    /// The unnamed scratch file: made, unlinked at once, closed when the last copy of the fingerprints goes.
    private final class Scratch {
        let fd: Int32

        /// A file that never has a name, in `directory`'s file system (Linux's `O_TMPFILE`); nil where there is none.
        init?(unnamedIn directory: String) {
            #if os(Linux) && (arch(x86_64) || arch(arm64))
            // O_TMPFILE, which Glibc's module does not export: __O_TMPFILE (0o20000000) with O_DIRECTORY.
            let fd = Posix.open(directory, 0o20000000 | O_DIRECTORY | O_RDWR | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return nil }
            self.fd = fd
            #else
            return nil
            #endif
        }

        /// A file made in `directory` and unlinked at once.
        init?(in directory: String) {
            var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
                + Array("shop-fingerprints-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.nonEmptyBase) }
            guard fd >= 0 else { return nil }
            _ = template.withUnsafeBufferPointer { unlink($0.nonEmptyBase) }
            self.fd = fd
        }

        deinit { Posix.close(fd) }

        func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
            Self.whole(bytes.count) { done in pwrite(fd, bytes.nonEmptyBase + done, bytes.count - done, off_t(offset + done)) }
        }

        static func read(_ fd: Int32, into bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
            whole(bytes.count) { done in pread(fd, bytes.nonEmptyBase + done, bytes.count - done, off_t(offset + done)) }
        }

        /// Repeats `transfer` (given the bytes done so far) until `count` bytes are done; `false` on an error or the file's end.
        private static func whole(_ count: Int, _ transfer: (Int) -> Int) -> Bool {
            var done = 0
            while done < count {
                let n = transfer(done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
    }

    /// Sorts without a scratch buffer the size of the array (the standard
    /// library's sort takes one half its size): one pass by the top byte —
    /// each value swapped straight into its bucket (American flag sort) —
    /// then each bucket by the standard library, whose scratch is then half a
    /// bucket: 1/512 of the array for fingerprints, which spread evenly.
    package static func sortInPlace(_ a: UnsafeMutableBufferPointer<UInt64>) {
        guard a.count > 256 else { var all = a; all.sort(); return }
        @inline(__always) func bucket(_ v: UInt64) -> Int { Int(truncatingIfNeeded: v >> 56) }
        var ends = [Int](repeating: 0, count: 256)
        for v in a { ends[bucket(v)] += 1 }
        var next = [Int](repeating: 0, count: 256)
        var sum = 0
        for b in 0..<256 {
            next[b] = sum
            sum += ends[b]
            ends[b] = sum
        }
        for b in 0..<256 {
            while next[b] < ends[b] {
                // Carry the value at b's next free place to its own bucket, and the one there onwards, until one belongs in b.
                var v = a[next[b]]
                var home = bucket(v)
                while home != b {
                    swap(&v, &a[next[home]])
                    next[home] += 1
                    home = bucket(v)
                }
                a[next[b]] = v
                next[b] += 1
            }
        }
        var start = 0
        for b in 0..<256 {
            var part = UnsafeMutableBufferPointer(rebasing: a[start..<ends[b]])
            part.sort()
            start = ends[b]
        }
    }
}
