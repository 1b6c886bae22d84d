import Foundation
import ShopEvents

/// The snapshot file: the views and the journal position they cover.
///
/// Layout: `SHOPVIEW`, format version (UInt32), the position (`seq`, byte
/// offset, offset of the last line, its `at`), the SHA-256 of the journal's
/// line at `seq`, the views, and last a 64-bit checksum of everything before it, so
/// a truncated or damaged file is recognised as such.
public enum ViewSnapshot {
    static let magic = Array("SHOPVIEW".utf8)
    static let version: UInt32 = 16   // 2: the state holds members; 3: its purchases kept compactly; 4: the history at its depth; 5: purchases by handles, a 64-bit checksum; 6: purchase ids in an IDIndex with tags; 7: items' default quantities, locations' aliases; 8: entries' assignees; 9: quantities in thousandths; 10: stores, purchases' stores; 11: the no-store row derived, not stored; 12: the purchases in a PurchaseLedger, its arrays as they are; 13: the ledger keeps what the rules need, the places and seqs in the history's PurchaseRows; 14: stores' own orders; 15: the projections each in its section (position, state, statistics, the audit's records if saved, their length first); 16: each trip's shopper, the open trips derived from them

    public static func path(forJournal journal: String) -> String { journal + ".snapshot" }

    /// Why a snapshot cannot be used.
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    static func save(_ views: some SavedFold, position: JournalPosition, journal: String) throws(JournalError) {
        guard case let .line(hash) = try line(journal: journal, position: position) else {
            throw JournalError(.io, "cannot snapshot \(journal): it no longer has event \(position.seq) where it was read")
        }
        var w = BinaryWriter()
        w.bytes.append(contentsOf: magic)
        w.uint32(version)
        w.int(position.seq); w.int(position.offset); w.int(position.lastLineOffset)
        w.optional(position.lastAt) { $0.timestamp($1) }
        w.digest(hash)
        views.encode(to: &w)
        try SnapshotFile.write(w.bytes, to: path(forJournal: journal))
    }

    /// The views of the snapshot beside `journal`, read as a `Fold` (each
    /// reads the projections it holds and passes over the others); `resident`
    /// false reads it through a mapping whose pages a fold can let go.
    static func load<Fold: SnapshotFold>(_: Fold.Type, journal: String, resident: Bool = true) -> Result<(Fold, JournalPosition), Problem> {
        var r: BinaryReader
        switch SnapshotFile.read(path(forJournal: journal), magic: magic, resident: resident && Fold.readsWhole) {
        case let .success(reader): r = reader
        case .failure(.unreadable): return .failure(Problem(description: "it cannot be read"))
        case .failure(.notASnapshot): return .failure(Problem(description: "it is not a ShopEvents snapshot"))
        case .failure(.damaged): return .failure(Problem(description: "it is damaged or truncated (its checksum does not match)"))
        }
        do {
            let format = try r.uint32()
            guard format == version else { return .failure(Problem(description: "it has format \(format), not \(version)")) }
            let position = JournalPosition(seq: try r.int(), offset: try r.int(), lastLineOffset: try r.int(),
                                           lastAt: try r.optional { r throws(BinaryDecodingError) in try r.timestamp() })
            let hash = try r.digest()
            let views = try Fold(snapshot: &r)
            guard r.isAtEnd else { return .failure(Problem(description: "it has bytes after the views")) }
            guard views.asOf == position.seq else { return .failure(Problem(description: "its views and position disagree")) }
            switch try? line(journal: journal, position: position) {
            case let .line(found) where found == hash:
                return .success((views, position))
            case .missing:
                return .failure(Problem(description: "it covers seq \(position.seq) but the journal is shorter (stale)"))
            case .line, .other:
                return .failure(Problem(description: "the journal's line \(position.seq) is not the one it covers (another or a changed journal)"))
            case nil:
                return .failure(Problem(description: "the journal cannot be read at seq \(position.seq)"))
            }
        } catch where error.description == PurchaseAudit.missing {
            return .failure(Problem(description: PurchaseAudit.missing + ", which these views show"))
        } catch {
            return .failure(Problem(description: "it cannot be decoded: \(error.description)"))
        }
    }

    /// The views' position, first in their section of the file.
    static func writePosition(_ asOf: Int, _ asOfTime: Timestamp?, to w: inout BinaryWriter) {
        w.int(asOf)
        w.optional(asOfTime) { $0.timestamp($1) }
    }

    static func readPosition(_ r: inout BinaryReader) throws(BinaryDecodingError) -> (Int, Timestamp?) {
        (try r.int(), try r.optional { r throws(BinaryDecodingError) in try r.timestamp() })
    }

    /// What the journal holds where `position` says event `seq` ends.
    enum LineCheck: Equatable {
        /// The journal is too short.
        case missing
        /// A line is there, but not event `seq`.
        case other
        /// Event `seq`, with the SHA-256 of its line.
        case line(SHA256Digest)
    }

    static func line(journal: String, position: JournalPosition) throws(JournalError) -> LineCheck {
        guard position.seq > 0 else { return .line(.zero) }
        let length = position.offset - position.lastLineOffset
        guard length > 1, position.lastLineOffset >= 0 else { return .other }
        let fd = open(journal, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw JournalError(.notFound, "cannot open \(journal)") }
        defer { close(fd) }
        var line = [UInt8](repeating: 0, count: length)
        let n = line.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(position.lastLineOffset)) }
        guard n == length else { return .missing }
        guard line.last == 0x0A else { return .other }
        line.removeLast()
        guard let recorded = try? EventLineCodec.decode(line), recorded.seq == position.seq else { return .other }
        return .line(SHA256.hash(line))
    }
}

/// A fold that can be read from a views snapshot: it reads the projections it
/// holds and passes over the others.
package protocol SnapshotFold: StateFold {
    init(snapshot r: inout BinaryReader) throws(BinaryDecodingError)
    /// Whether it reads (nearly) all of a snapshot, which is then read into
    /// memory; one that passes over most of it reads a mapping and lets go of
    /// the pages it passes over.
    static var readsWhole: Bool { get }
}

extension SnapshotFold {
    package static var readsWhole: Bool { true }
}

/// A fold a views snapshot can be saved from: the state and the statistics, and the audit's records if it has them.
package protocol SavedFold: SnapshotFold {
    func encode(to w: inout BinaryWriter)
}

extension PresentViews: SnapshotFold {
    package static var readsWhole: Bool { false }
}
extension StateViews: SnapshotFold {}
extension StatisticsViews: SavedFold {}
extension HouseholdViews: SavedFold {}
