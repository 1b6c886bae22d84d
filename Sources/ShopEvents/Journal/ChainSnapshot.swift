import Foundation

/// The writer's side of a journal saved beside it (`<journal>.chain`): the
/// audit head, the state, and the command and event ids that idempotent
/// retries and fresh ids need, as of a byte offset. Opening for writing
/// starts from it when the journal still has, at that offset, the very line
/// whose SHA-256 is its head — and then reads and checks only what follows.
/// A stale, foreign or damaged snapshot is ignored (and the journal read from
/// the start): deleting it changes nothing but the time opening takes.
/// `verify` never uses it.
enum ChainSnapshot {
    static let magic = Array("SHOPCHAN".utf8)
    static let version: UInt32 = 2   // 2: the state's purchases kept compactly

    static func path(forJournal journal: String) -> String { journal + ".chain" }

    /// Writes it atomically (temporary file, `fsync`, rename).
    static func save(_ chain: JournalChain, size: Int, journal: String) throws(JournalError) {
        guard chain.openCommand == nil, chain.firstNewer == nil else {
            throw JournalError(.io, "cannot snapshot \(journal) in the middle of a command")
        }
        var w = BinaryWriter()
        w.bytes.append(contentsOf: magic)
        w.uint32(version)
        w.int(size)
        chain.encode(to: &w)
        w.digest(SHA256.hash(w.bytes))
        let path = path(forJournal: journal)
        let temporary = path + ".tmp-\(getpid())"
        let fd = Posix.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.io("create", temporary) }
        var done = 0
        while done < w.bytes.count {
            let n = w.bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = JournalError.io("write", temporary)
                _ = Posix.close(fd); unlink(temporary)
                throw error
            }
            done += n
        }
        guard Journal.fullSync(fd) else {
            let error = JournalError.io("fsync", temporary)
            _ = Posix.close(fd); unlink(temporary)
            throw error
        }
        _ = Posix.close(fd)
        guard rename(temporary, path) == 0 else {
            let error = JournalError.io("rename to \(path)", temporary)
            unlink(temporary)
            throw error
        }
    }

    /// The chain and the offset it covers, if the snapshot is good for the journal open at `fd`.
    static func load(journal: String, fd: Int32) -> (chain: JournalChain, size: Int)? {
        guard let data = FileManager.default.contents(atPath: path(forJournal: journal)) else { return nil }
        let bytes = Array(data)
        guard bytes.count > magic.count + 4 + 32, Array(bytes[0..<magic.count]) == magic else { return nil }
        let body = Array(bytes[0..<(bytes.count - 32)])
        var trailer = BinaryReader(Array(bytes[(bytes.count - 32)...]))
        guard let checksum = try? trailer.digest(), checksum == SHA256.hash(body) else { return nil }
        var r = BinaryReader(body, at: magic.count)
        guard let format = try? r.uint32(), format == version, let size = try? r.int(),
              let chain = try? JournalChain(from: &r) else { return nil }
        // The journal must still have that very line, ending with its newline, at that offset.
        guard chain.head.seq > 0 else { return nil }
        let length = size - chain.lastLineOffset
        guard length > 1 else { return nil }
        var line = [UInt8](repeating: 0, count: length)
        let n = line.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(chain.lastLineOffset)) }
        guard n == length, line.last == 0x0A, SHA256.hash(Array(line.dropLast())) == chain.head.hash else { return nil }
        return (chain, size)
    }
}
