import Foundation

/// Streams the complete lines of a journal file through one reusable buffer,
/// so reading needs memory for the longest line, not for the whole file.
struct JournalLines: ~Copyable {
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

    /// Bytes after the last `\n`, and where they start.
    struct Trailing: Sendable {
        var offset: Int
        var bytes: [UInt8]
    }

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
        start = 0
        end = 0
        eof = false
        trailing = nil
        fileOffset = offset
        lineNumber = firstLineNumber - 1
    }

    /// Offset in the file just after the last line returned.
    var consumedOffset: Int { fileOffset - (end - start) }

    mutating func next() throws(JournalError) -> Line? {
        while true {
            if start < end, let newline = memchr(buffer + start, 0x0A, end - start) {
                let length = buffer.distance(to: newline) - start
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
