import Foundation

/// Ids of one kind in the order they were added, each found by its position:
/// an open-addressing table of positions under a fixed, cheap hash of the id's
/// bytes, beside the ids in chunks (never copied whole as it grows).
///
/// For the sets that grow with the history — every event id, every command id
/// of a journal — this costs about 23 bytes an id (a `Set` about 32) and a
/// lookup hashes two words instead of running SipHash. Beside each bucket a
/// one-byte tag (seven bits of the hash, 0 where empty) lets a probe pass
/// over other ids without fetching them: looking up an id not there, the
/// common case when ids are checked for reuse, touches the tags and nothing
/// else. The hash is not seeded, so that the table can be stored as it is
/// (``encode(to:)``) and used where it lies in a mapped snapshot: a journal
/// crafted so that its ids collide makes lookups slow, never wrong.
package struct IDIndex<Kind: EntityKind>: Hashable, Sendable {
    private static var chunkShift: Int { 14 }
    private static var chunkSize: Int { 1 << chunkShift }
    /// The ids a snapshot held (positions `0..<stored.count`), where they lie.
    private var stored: StoredIDs?
    // The ids added since, at positions from `stored.count` on:
    /// Positions by bucket, meaningful where the tag is not 0; a power of two long, at most three quarters full.
    private var slots: [Int32] = []
    /// Per bucket, 0 where empty, else `tag(of:)` its id's hash.
    private var tags: [UInt8] = []
    private var chunks: [[EntityID<Kind>]] = []
    private var added = 0

    package init() {}

    private var base: Int { stored?.count ?? 0 }

    package var count: Int { base + added }

    package subscript(position: Int) -> EntityID<Kind> {
        if let stored, position < stored.count { return stored.ids.id(position) }
        let local = position - base
        return chunks[local >> Self.chunkShift][local & (Self.chunkSize - 1)]
    }

    package func position(of id: EntityID<Kind>) -> Int? {
        let hash = id.fixedHash
        if let stored, let at = stored.position(of: id, hash: hash) { return at }
        guard case let .found(at) = probe(id, hash: hash) else { return nil }
        return base + at
    }

    /// What one probe of the added ids finds: the id's local position, or the free bucket where it would go
    /// (none while the table is empty).
    private enum Probe { case found(Int), free(Int?) }

    private func probe(_ id: EntityID<Kind>, hash: Int) -> Probe {
        guard !slots.isEmpty else { return .free(nil) }
        let mask = slots.count - 1
        let tag = Self.tag(of: hash)
        var bucket = hash & mask
        return tags.withUnsafeBufferPointer { tags in
            while true {
                let found = tags[bucket]
                if found == 0 { return .free(bucket) }
                if found == tag {
                    let at = Int(slots[bucket])
                    if chunks[at >> Self.chunkShift][at & (Self.chunkSize - 1)] == id { return .found(at) }
                }
                bucket = (bucket + 1) & mask
            }
        }
    }

    /// Seven high bits of the hash (the bucket comes from the low ones), never 0.
    static func tag(of hash: Int) -> UInt8 { UInt8(truncatingIfNeeded: UInt(bitPattern: hash) >> 57) | 0x80 }

    /// The buckets a table of `count` ids has when they were added one by one:
    /// 16, doubled while more than three quarters would be full; 0 for none.
    static func capacity(for count: Int) -> Int {
        guard count > 0 else { return 0 }
        var capacity = 16
        while capacity * 3 < count * 4 { capacity <<= 1 }
        return capacity
    }

    /// Puts `position` in the first free bucket from `hash`'s.
    private static func place(hash: Int, position: Int32, slots: UnsafeMutableBufferPointer<Int32>, tags: UnsafeMutableBufferPointer<UInt8>) {
        let mask = slots.count - 1
        var bucket = hash & mask
        while tags[bucket] != 0 { bucket = (bucket + 1) & mask }
        tags[bucket] = tag(of: hash)
        slots[bucket] = position
    }

    /// Adds `id` at the end unless it is there already; its position either way.
    @discardableResult
    package mutating func insert(_ id: EntityID<Kind>) -> (inserted: Bool, position: Int) {
        let hash = id.fixedHash
        if let stored, let at = stored.position(of: id, hash: hash) { return (false, at) }
        // One probe: the id's position if it is there, else the free bucket where it goes.
        var free: Int?
        switch probe(id, hash: hash) {
        case let .found(at): return (false, base + at)
        case let .free(bucket): free = bucket
        }
        precondition(count < Int(Int32.max), "more ids than an index holds")
        if (added + 1) * 4 > slots.count * 3 {
            grow(to: Self.capacity(for: added + 1))
            free = nil
        }
        if added & (Self.chunkSize - 1) == 0 {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(id)
        if let free {
            tags[free] = Self.tag(of: hash)
            slots[free] = Int32(added)
        } else {
            slots.withUnsafeMutableBufferPointer { slots in
                tags.withUnsafeMutableBufferPointer { Self.place(hash: hash, position: Int32(added), slots: slots, tags: $0) }
            }
        }
        added += 1
        return (true, count - 1)
    }

    /// A table of `capacity` buckets, every id placed again.
    private mutating func grow(to capacity: Int) {
        var slots = [Int32](repeating: -1, count: capacity), tags = [UInt8](repeating: 0, count: capacity)
        slots.withUnsafeMutableBufferPointer { slots in
            tags.withUnsafeMutableBufferPointer { tags in
                for (index, chunk) in chunks.enumerated() {
                    chunk.withUnsafeBufferPointer { ids in
                        for (offset, known) in ids.enumerated() {
                            Self.place(hash: known.fixedHash, position: Int32(index << Self.chunkShift + offset), slots: slots, tags: tags)
                        }
                    }
                }
            }
        }
        (self.slots, self.tags) = (slots, tags)
    }

    package func contains(_ id: EntityID<Kind>) -> Bool { position(of: id) != nil }

    /// Every id, in the order added.
    package var ids: LazyMapSequence<Range<Int>, EntityID<Kind>> { (0..<count).lazy.map { self[$0] } }

    package static func == (a: IDIndex, b: IDIndex) -> Bool {
        a.count == b.count && (a.stored === b.stored ? a.chunks == b.chunks : (0..<a.count).allSatisfy { a[$0] == b[$0] })
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(count) }
}

// MARK: The snapshot encoding

/// The ids of a snapshot where they lie in its bytes: 16 bytes an id, then
/// 4 a bucket, then 1 a tag.
private final class StoredIDs: Sendable {
    let ids: MappedRecords, slots: MappedRecords, tags: MappedRecords
    private let mask: Int

    init(ids: MappedRecords, slots: MappedRecords, tags: MappedRecords) {
        (self.ids, self.slots, self.tags, mask) = (ids, slots, tags, slots.count - 1)
    }

    var count: Int { ids.count }

    var capacity: Int { slots.count }

    func position<Kind>(of id: EntityID<Kind>, hash: Int) -> Int? {
        let wanted = IDIndex<Kind>.tag(of: hash)
        var bucket = hash & mask
        while true {
            let found = tags.load(bucket, as: UInt8.self)
            if found == 0 { return nil }
            if found == wanted {
                let at = Int(slots.load(bucket, as: Int32.self))
                if ids.holds(id, at: at) { return at }
            }
            bucket = (bucket + 1) & mask
        }
    }
}

extension IDIndex {
    /// The index as adding its ids one by one would leave it: the count, the
    /// ids, the number of buckets, each bucket's position and each bucket's tag.
    package func encode(to w: inout BinaryWriter) {
        w.int(count)
        let capacity = Self.capacity(for: count)
        w.bytes.reserveCapacity(w.bytes.count + count * 16 + 8 + capacity * 5)
        for position in 0..<count { w.id(self[position]) }
        w.int(capacity)
        if let stored, added == 0, stored.capacity == capacity {
            w.bytes.append(contentsOf: stored.slots.raw)
            w.bytes.append(contentsOf: stored.tags.raw)
        } else if count > 0 {
            // Adding one by one places each position in order, whatever the table grew through: the same layout.
            var slots = [Int32](repeating: -1, count: capacity), tags = [UInt8](repeating: 0, count: capacity)
            slots.withUnsafeMutableBufferPointer { slots in
                tags.withUnsafeMutableBufferPointer { tags in
                    for position in 0..<count { Self.place(hash: self[position].fixedHash, position: Int32(position), slots: slots, tags: tags) }
                }
            }
            for slot in slots { w.uint32(UInt32(bitPattern: slot)) }
            w.bytes.append(contentsOf: tags)
        }
    }

    /// Reads an index back, using its ids, buckets and tags where they lie in
    /// `r`'s bytes; the number of buckets and every bucket are checked first.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        let count = try r.count(minimumSize: 16)
        let idsAt = try r.skip(count * 16)
        let capacity = try r.count(minimumSize: 5)
        guard capacity == Self.capacity(for: count) else {
            throw BinaryDecodingError("an index of \(count) ids has \(Self.capacity(for: count)) buckets, not \(capacity)")
        }
        let slotsAt = try r.skip(capacity * 4), tagsAt = try r.skip(capacity)
        guard count > 0 else { return }
        let raw = r.all
        var filled = 0
        for bucket in 0..<capacity {
            let tag = raw[tagsAt + bucket]
            guard tag != 0 else { continue }
            let at = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: slotsAt + bucket * 4, as: Int32.self))
            guard tag & 0x80 != 0, at >= 0, at < Int32(count) else {
                throw BinaryDecodingError("bucket \(bucket) names id \(at) of \(count) (tag \(tag))")
            }
            filled += 1
        }
        guard filled == count else { throw BinaryDecodingError("the index holds \(filled) ids, not \(count)") }
        stored = StoredIDs(ids: MappedRecords(r, at: idsAt, count: count, size: 16), slots: MappedRecords(r, at: slotsAt, count: capacity, size: 4),
                           tags: MappedRecords(r, at: tagsAt, count: capacity, size: 1))
    }

    /// Passes over an index in the snapshot encoding, reading only its sizes; how many ids it holds.
    package static func skip(_ r: inout BinaryReader) throws(BinaryDecodingError) -> Int {
        let count = try r.count(minimumSize: 16)
        _ = try r.skip(count * 16)
        let capacity = try r.count(minimumSize: 5)
        guard capacity == Self.capacity(for: count) else {
            throw BinaryDecodingError("an index of \(count) ids has \(Self.capacity(for: count)) buckets, not \(capacity)")
        }
        _ = try r.skip(capacity * 5)
        return count
    }
}

extension EntityID {
    /// A fixed function of the id's bytes, the same in every process (unlike
    /// `hashValue`), so that an index built on it can be stored.
    package var fixedHash: Int {
        let (a, b) = words
        var h = UInt64(littleEndian: a) ^ (UInt64(littleEndian: b) &* 0x9E37_79B9_7F4A_7C15)
        h ^= h >> 31
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 29
        return Int(truncatingIfNeeded: h)
    }
}

/// What the chain knows of each command: its id's position in an ``IDIndex``
/// gives its record. Read from a snapshot, the records lie in it (24 bytes
/// each) and those changed since are kept beside them.
package struct CommandTable: Hashable, Sendable {
    private var ids = IDIndex<CommandKind>()
    /// The records of a snapshot (24 bytes: first seq, count, offset), where they lie.
    private var stored: MappedRecords?
    /// Records of stored commands changed since the snapshot (a command that
    /// went on after it), by position.
    private var changed: [Int: CommandRecord] = [:]
    /// The records added since, at positions from `stored.count` on.
    private var records: [[CommandRecord]] = []
    private static var chunkShift: Int { 14 }

    package init() {}

    package var count: Int { ids.count }

    private var base: Int { stored?.count ?? 0 }

    private func record(at position: Int) -> CommandRecord {
        if let stored, position < stored.count {
            return changed[position] ?? CommandRecord(firstSeq: Int(stored.load(position, 0, as: Int64.self)),
                                                      count: Int(stored.load(position, 8, as: Int64.self)),
                                                      offset: Int(stored.load(position, 16, as: Int64.self)))
        }
        let local = position - base
        return records[local >> Self.chunkShift][local & ((1 << Self.chunkShift) - 1)]
    }

    private mutating func set(_ record: CommandRecord, at position: Int) {
        if let stored, position < stored.count { changed[position] = record; return }
        let local = position - base
        records[local >> Self.chunkShift][local & ((1 << Self.chunkShift) - 1)] = record
    }

    package subscript(id: CommandID) -> CommandRecord? {
        get { ids.position(of: id).map(record(at:)) }
        set {
            guard let newValue else { preconditionFailure("a command is never forgotten") }
            if insert(id, newValue) == nil, let at = ids.position(of: id) { set(newValue, at: at) }
        }
    }

    /// Adds a command not seen before and gives its position; nil, changing
    /// nothing, if it is there already. One probe of the index either way.
    package mutating func insert(_ id: CommandID, _ record: CommandRecord) -> Int? {
        let (inserted, at) = ids.insert(id)
        guard inserted else { return nil }
        if (at - base) >> Self.chunkShift == records.count {
            records.append([])
            records[records.count - 1].reserveCapacity(1 << Self.chunkShift)
        }
        records[records.count - 1].append(record)
        return at
    }

    /// Where the command is, if it is there.
    package func position(of id: CommandID) -> Int? { ids.position(of: id) }

    /// One more event of the command at `position`.
    /// Sets where the command's first line starts, once known.
    package mutating func setOffset(_ offset: Int, at position: Int) {
        var updated = record(at: position)
        updated.offset = offset
        set(updated, at: position)
    }

    package mutating func addEvent(at position: Int) {
        var updated = record(at: position)
        updated.count += 1
        set(updated, at: position)
    }

    /// Every command, in the order first seen.
    package var all: LazyMapSequence<Range<Int>, (id: CommandID, record: CommandRecord)> {
        (0..<ids.count).lazy.map { (ids[$0], record(at: $0)) }
    }

    package static func == (a: CommandTable, b: CommandTable) -> Bool {
        a.ids == b.ids && (0..<a.count).allSatisfy { a.record(at: $0) == b.record(at: $0) }
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(count) }

    /// The ids as ``IDIndex/encode(to:)`` writes them, then each record as three 64-bit integers.
    package func encode(to w: inout BinaryWriter) {
        ids.encode(to: &w)
        w.bytes.reserveCapacity(w.bytes.count + count * 24)
        for position in 0..<count {
            let r = record(at: position)
            w.int(r.firstSeq); w.int(r.count); w.int(r.offset)
        }
    }

    /// Reads a table back where it lies in `r`'s bytes; every record is checked first.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        ids = try IDIndex(from: &r)
        let count = ids.count
        let at = try r.skip(count * 24)
        guard count > 0 else { return }
        let raw = r.all
        for position in 0..<count {
            func load(_ field: Int) -> Int64 { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: at + position * 24 + field * 8, as: Int64.self)) }
            guard load(0) >= 1, load(1) >= 1, load(2) >= 0 else {
                throw BinaryDecodingError("command \(position)'s record (first seq \(load(0)), \(load(1)) events, offset \(load(2))) cannot be")
            }
        }
        stored = MappedRecords(r, at: at, count: count, size: 24)
    }
}

/// Where the events of one command are in the journal, for idempotent retries.
package struct CommandRecord: Hashable, Sendable {
    package var firstSeq: Int
    package var count: Int
    package var offset: Int

    package init(firstSeq: Int, count: Int, offset: Int) {
        self.firstSeq = firstSeq
        self.count = count
        self.offset = offset
    }
}
