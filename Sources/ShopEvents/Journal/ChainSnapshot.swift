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
    static let version: UInt32 = 12   // 2: the state's purchases kept compactly; 3: by handles, stored as they are, a 64-bit checksum; 4: the event and command ids likewise; 5: purchase ids in an IDIndex with tags; 6: items' default quantities, locations' aliases; 7: entries' assignees; 8: quantities in thousandths, items' units and barcodes; 9: stores, trips' stores; 10: the purchases in a PurchaseLedger, its arrays as they are; 11: the ledger keeps what the rules need (no place, no seq); 12: stores' own orders

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
        try SnapshotFile.write(w.bytes, to: path(forJournal: journal))
    }

    /// What the snapshot says of the journal open at `fd`.
    enum Found {
        /// It is good: the chain, and the offset it covers.
        case usable(JournalChain, size: Int)
        /// It records a head the file no longer reaches: the journal was cut
        /// back (by whole lines, or a copy put in its place) since it was saved.
        case beyondTheEnd(JournalHead, size: Int)
        /// None, or one that is foreign, damaged or of another journal at that offset: ignored.
        case unusable
    }

    /// The chain and the offset it covers, if the snapshot is good for the journal open at `fd`.
    static func load(journal: String, fd: Int32) -> Found {
        guard case var .success(r) = SnapshotFile.read(path(forJournal: journal), magic: magic) else { return .unusable }
        guard let format = try? r.uint32(), format == version, let size = try? r.int(),
              let chain = try? JournalChain(from: &r) else { return .unusable }
        // The journal must still have that very line, ending with its newline, at that offset.
        guard chain.head.seq > 0 else { return .unusable }
        let length = size - chain.lastLineOffset
        guard length > 1 else { return .unusable }
        var info = stat()
        if fstat(fd, &info) == 0, Int(info.st_size) < size { return .beyondTheEnd(chain.head, size: size) }
        var line = [UInt8](repeating: 0, count: length)
        let n = line.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(chain.lastLineOffset)) }
        guard n == length, line.last == 0x0A, SHA256.hash(Array(line.dropLast())) == chain.head.hash else { return .unusable }
        return .usable(chain, size: size)
    }
}
