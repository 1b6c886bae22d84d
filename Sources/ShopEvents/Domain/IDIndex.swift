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
/// else. The hash is not seeded: a journal crafted so that its ids collide
/// makes lookups slow, never wrong.
package struct IDIndex<Kind: EntityKind>: Hashable, Sendable {
    private static var chunkShift: Int { 14 }
    private static var chunkSize: Int { 1 << chunkShift }
    /// Positions by bucket, meaningful where the tag is not 0; a power of two long, at most three quarters full.
    private var slots: [Int32] = []
    /// Per bucket, 0 where empty, else `tag(of:)` its id's hash.
    private var tags: [UInt8] = []
    private var chunks: [[EntityID<Kind>]] = []
    package private(set) var count = 0

    package init() {}

    package subscript(position: Int) -> EntityID<Kind> { chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] }

    package func position(of id: EntityID<Kind>) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        let hash = id.fixedHash
        let tag = Self.tag(of: hash)
        var bucket = hash & mask
        return tags.withUnsafeBufferPointer { tags in
            while true {
                let found = tags[bucket]
                if found == 0 { return nil }
                if found == tag {
                    let at = Int(slots[bucket])
                    if self[at] == id { return at }
                }
                bucket = (bucket + 1) & mask
            }
        }
    }

    /// Seven high bits of the hash (the bucket comes from the low ones), never 0.
    private static func tag(of hash: Int) -> UInt8 { UInt8(truncatingIfNeeded: UInt(bitPattern: hash) >> 57) | 0x80 }

    package func contains(_ id: EntityID<Kind>) -> Bool { position(of: id) != nil }

    /// Adds `id` at the end unless it is there already; its position either way.
    @discardableResult
    package mutating func insert(_ id: EntityID<Kind>) -> (inserted: Bool, position: Int) {
        if let known = position(of: id) { return (false, known) }
        precondition(count < Int(Int32.max), "more ids than an index holds")
        if (count + 1) * 4 > slots.count * 3 {
            var capacity = max(16, slots.count)
            while capacity * 3 < (count + 1) * 4 { capacity <<= 1 }
            slots = [Int32](repeating: -1, count: capacity)
            tags = [UInt8](repeating: 0, count: capacity)
            for position in 0..<count { place(self[position], at: position) }
        }
        if count & (Self.chunkSize - 1) == 0 {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(id)
        place(id, at: count)
        count += 1
        return (true, count - 1)
    }

    private mutating func place(_ id: EntityID<Kind>, at position: Int) {
        let mask = slots.count - 1
        let hash = id.fixedHash
        var bucket = hash & mask
        while tags[bucket] != 0 { bucket = (bucket + 1) & mask }
        tags[bucket] = Self.tag(of: hash)
        slots[bucket] = Int32(position)
    }

    /// Every id, in the order added.
    package var ids: LazyMapSequence<Range<Int>, EntityID<Kind>> { (0..<count).lazy.map { self[$0] } }

    package static func == (a: IDIndex, b: IDIndex) -> Bool { a.chunks == b.chunks }
    package func hash(into hasher: inout Hasher) { hasher.combine(count) }
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
/// gives its record.
package struct CommandTable: Hashable, Sendable {
    private var ids = IDIndex<CommandKind>()
    private var records: [[CommandRecord]] = []
    private static var chunkShift: Int { 14 }

    package init() {}

    package var count: Int { ids.count }

    package subscript(id: CommandID) -> CommandRecord? {
        get { ids.position(of: id).map { records[$0 >> Self.chunkShift][$0 & ((1 << Self.chunkShift) - 1)] } }
        set {
            guard let newValue else { preconditionFailure("a command is never forgotten") }
            if insert(id, newValue) == nil, let at = ids.position(of: id) {
                records[at >> Self.chunkShift][at & ((1 << Self.chunkShift) - 1)] = newValue
            }
        }
    }

    /// Adds a command not seen before and gives its position; nil, changing
    /// nothing, if it is there already. One probe of the index either way.
    package mutating func insert(_ id: CommandID, _ record: CommandRecord) -> Int? {
        let (inserted, at) = ids.insert(id)
        guard inserted else { return nil }
        if at >> Self.chunkShift == records.count {
            records.append([])
            records[records.count - 1].reserveCapacity(1 << Self.chunkShift)
        }
        records[records.count - 1].append(record)
        return at
    }

    /// Where the command is, if it is there.
    package func position(of id: CommandID) -> Int? { ids.position(of: id) }

    /// One more event of the command at `position`.
    package mutating func addEvent(at position: Int) {
        records[position >> Self.chunkShift][position & ((1 << Self.chunkShift) - 1)].count += 1
    }

    /// Every command, in the order first seen.
    var all: LazyMapSequence<Range<Int>, (id: CommandID, record: CommandRecord)> {
        (0..<ids.count).lazy.map { (ids[$0], records[$0 >> Self.chunkShift][$0 & ((1 << Self.chunkShift) - 1)]) }
    }
}
