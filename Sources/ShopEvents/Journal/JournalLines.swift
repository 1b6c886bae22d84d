import Foundation

/// Streams the complete lines of a journal file through one reusable buffer,
/// so reading needs memory for the longest line, not for the whole file.
package struct JournalLines: ~Copyable {
    /// The longest line the journal reads or writes (4 MiB).
    static let maxLineBytes = 4 << 20

    struct Line {
        /// 1-based.
        var number: Int
        /// Byte offset of the line's first byte in the file.
        var offset: Int
        /// The line without its `\n`; valid until the next call of ``next()``.
        var bytes: UnsafeRawBufferPointer
    }

    private let fd: Int32
    private let path: String
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0
    private var eof = false
    private var fileOffset: Int
    private var lineNumber: Int
    /// Bytes after the last `\n` once the end is reached: a torn tail, or a line being written.
    private(set) var trailing: Trailing?

    /// Bytes after the last `\n`, and where they start; or, where
    /// ``emptyLines`` is more than 0, empty lines (white space only) that run
    /// to the end of the file, which an editor or `echo >>` adds: no line of
    /// a journal is empty, and they are recovered like a torn line.
    struct Trailing: Sendable {
        var offset: Int
        var bytes: [UInt8]
        var emptyLines = 0
    }

    /// Where the empty lines at the end of the file begin: set once they are
    /// found, and the reading ends there.
    private var endsAtEmptyLines: Int?

    init(fd: Int32, path: String, startOffset: Int = 0, firstLineNumber: Int = 1, chunk: Int = 1 << 20) {
        self.fd = fd
        self.path = path
        capacity = chunk
        buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        fileOffset = startOffset
        lineNumber = firstLineNumber - 1
    }

    deinit { buffer.deallocate() }

    /// Reads on from `offset` (where the descriptor now stands), line
    /// `firstLineNumber` first, with the buffer it has: forgets what it had read.
    mutating func restart(at offset: Int, firstLineNumber: Int) {
        endsAtEmptyLines = nil
        start = 0
        end = 0
        eof = false
        trailing = nil
        fileOffset = offset
        lineNumber = firstLineNumber - 1
    }

    /// Offset in the file just after the last line returned.
    var consumedOffset: Int { endsAtEmptyLines ?? fileOffset - (end - start) }

    mutating func next() throws(JournalError) -> Line? {
        if endsAtEmptyLines != nil { return nil }
        while true {
            if start < end, let newline = memchr(buffer + start, 0x0A, end - start) {
                let length = buffer.distance(to: newline) - start
                if Self.isBlank(UnsafeRawBufferPointer(start: buffer + start, count: length)),
                   let tail = try emptyLinesToTheEnd(from: consumedOffset) {
                    endsAtEmptyLines = tail.offset
                    trailing = tail
                    return nil
                }
                let line = Line(number: lineNumber + 1, offset: consumedOffset,
                                bytes: UnsafeRawBufferPointer(start: buffer + start, count: length))
                lineNumber += 1
                start += length + 1
                return line
            }
            if eof {
                if start < end {
                    trailing = Trailing(offset: consumedOffset, bytes: Array(UnsafeRawBufferPointer(start: buffer + start, count: end - start)))
                }
                return nil
            }
            try fill()
        }
    }

    /// Only spaces, tabs and carriage returns (an empty line's, in any editor).
    private static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy(isBlank)
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    /// How many empty lines `bytes` — what follows a journal's last line — are,
    /// if they are only that: white space and at least one newline (the last
    /// line may lack its own); `nil` for anything else, a torn line included.
    package static func emptyLines(_ bytes: some Collection<UInt8>) -> Int? {
        var newlines = 0
        for byte in bytes {
            if byte == 0x0A { newlines += 1 } else if !isBlank(byte) { return nil }
        }
        guard newlines > 0 else { return nil }
        return newlines + (bytes.reversed().first == 0x0A ? 0 : 1)
    }

    /// The bytes from `offset` to the end of the file, if they are all empty
    /// lines (white space, each line ending with its newline or not).
    /// Read with `pread`: the buffer and the descriptor's offset stay as they are.
    private func emptyLinesToTheEnd(from offset: Int) throws(JournalError) -> Trailing? {
        var rest: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset + rest.count)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw JournalError.io("read", path)
            }
            if n == 0 { break }
            guard chunk[..<n].allSatisfy({ $0 == 0x0A || Self.isBlank($0) }) else { return nil }
            rest += chunk[..<n]
        }
        // It begins with a blank line and its newline, so there is at least one.
        guard let count = Self.emptyLines(rest) else { return nil }
        return Trailing(offset: offset, bytes: rest, emptyLines: count)
    }

    private mutating func fill() throws(JournalError) {
        if start > 0 {
            memmove(buffer, buffer + start, end - start)
            end -= start
            start = 0
        }
        if end == capacity {
            guard capacity < JournalLines.maxLineBytes + (1 << 20) else {
                throw JournalError.corrupt(line: lineNumber + 1, offset: consumedOffset,
                                           "the line is longer than \(JournalLines.maxLineBytes) bytes; no journal line is that long")
            }
            let bigger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 16)
            bigger.copyMemory(from: buffer, byteCount: end)
            buffer.deallocate()
            buffer = bigger
            capacity *= 2
        }
        let n = read(fd, buffer + end, capacity - end)
        if n < 0 {
            if errno == EINTR { return }
            throw JournalError.io("read", path)
        }
        if n == 0 { eof = true }
        end += n
        fileOffset += n
    }
}
