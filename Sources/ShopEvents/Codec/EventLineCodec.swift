import Foundation

/// Reads and writes journal lines byte by byte, without Foundation's JSON.
///
/// Writing puts the keys in the journal's order (docs/JOURNAL.md) and leaves out
/// absent optional keys. Reading accepts keys in any order, ignores keys it
/// does not know (a later version may add some; the hash chain still covers
/// them), accepts `null` for an absent optional key, and refuses duplicate
/// keys, malformed JSON and invalid UTF-8 with the byte offset of the fault.
///
/// ```swift
/// let line = EventLineCodec.encode(recorded)          // bytes without the "\n"
/// let back = try EventLineCodec.decode(line)          // == recorded
/// ```
public enum EventLineCodec {
    /// The line's bytes, without the trailing newline.
    public static func encode(_ recorded: RecordedEvent) -> [UInt8] {
        var writer = JSONWriter(capacity: 320)
        append(recorded, to: &writer)
        return writer.takeBytes()
    }

    static func append(_ r: RecordedEvent, to w: inout JSONWriter) {
        w.beginObject()
        w.field("seq", r.seq)
        w.field("id", r.id)
        w.field("type", r.event.typeName)
        w.field("v", r.event.kind.currentVersion)
        w.key("at"); w.timestamp(r.at)
        w.field("actor", r.actor)
        w.field("device", r.device)
        w.field("command", r.command)
        w.field("commandEvents", r.commandEvents)
        w.field("correlation", r.correlation)
        w.key("data"); writeData(r.event, to: &w)
        w.key("prev"); w.digest(r.prev)
        w.endObject()
    }

    public static func decode(_ bytes: [UInt8]) throws(CodecError) -> RecordedEvent {
        try bytes.withUnsafeBytes { raw in Result { () throws(CodecError) in try decode(raw) } }.get()
    }

    /// Decodes a line of this version; a line written by a newer version
    /// (unknown `type`, or a newer `v`) is refused with `unknown_type` or
    /// `unsupported_version`. ``decodeLine(_:)`` gives such a line's envelope instead.
    public static func decode(_ line: UnsafeRawBufferPointer) throws(CodecError) -> RecordedEvent {
        // Straight to the event, not through a `JournalLine` wrapped and unwrapped (each a copy of the event).
        var newer: NewerEventLine?
        do {
            return try decodeRecorded(line, newer: &newer)
        } catch {
            if let newer { throw newer.codecError }
            throw error
        }
    }

    /// Decodes a line's bytes (without the newline); see ``decodeLine(_:)-(UnsafeRawBufferPointer)``.
    /// How many lines the command that `line` begins has (its `commandEvents`, else 1);
    /// 1 for a line that does not decode (a reader's chain check names it).
    public static func commandLines(beginningWith line: [UInt8]) -> Int {
        switch try? decodeLine(line) {
        case let .event(recorded)?: recorded.commandEvents ?? 1
        case let .newer(newer)?: newer.commandEvents ?? 1
        case nil: 1
        }
    }

    public static func decodeLine(_ bytes: [UInt8]) throws(CodecError) -> JournalLine {
        try bytes.withUnsafeBytes { raw in Result { () throws(CodecError) in try decodeLine(raw) } }.get()
    }

    /// Decodes a line: its event, or, for a line written by a newer version of
    /// ShopEvents, its envelope (`seq`, `prev`, …) so that the hash chain can
    /// still be checked over it.
    public static func decodeLine(_ line: UnsafeRawBufferPointer) throws(CodecError) -> JournalLine {
        var newer: NewerEventLine?
        do {
            return .event(try decodeRecorded(line, newer: &newer))
        } catch {
            if let newer { return .newer(newer) }
            throw error
        }
    }

    /// Decodes a line that holds an event of this version straight into a
    /// ``RecordedEvent`` (no ``JournalLine`` or `Optional` around it, for the
    /// readers' hot path: the event is copied once less). A line a newer
    /// version wrote throws `unsupported_version`, its envelope in `newer`.
    static func decodeRecorded(_ line: UnsafeRawBufferPointer, newer: inout NewerEventLine?) throws(CodecError) -> RecordedEvent {
        if let recorded = CanonicalLine.decode(line) { return recorded }
        return try decodeGeneral(line, newer: &newer)
    }

    /// ``decodeRecorded(_:newer:)`` for any line, in any key order: what the
    /// fast path (``CanonicalLine``) leaves, and every error.
    static func decodeGeneral(_ line: UnsafeRawBufferPointer, newer: inout NewerEventLine?) throws(CodecError) -> RecordedEvent {
        var s = JSONScanner(line)
        var keys = LineKeys()
        try s.beginObject()
        var first = true
        // The keys in the order this project writes them: each line is read by comparing the
        // expected key's bytes in place (a few ahead, for the optional ones); any other order,
        // white space or escape goes the general way, key by key.
        var expected = 0
        while true {
            var found: (TopKey, JSONScanner.Key)?
            var next = expected
            while found == nil, next < TopKey.canonical.count, next < expected + 4 {
                if let key = s.takeKey(TopKey.canonical[next].name, first: first) {
                    found = (TopKey.canonical[next], key)
                    expected = next + 1
                }
                next += 1
            }
            if found == nil, let key = try s.nextKey(first: &first) {
                found = (TopKey.canonical.first { s.keyMatches(key, $0.name) } ?? .unknown, key)
            }
            guard let (field, key) = found else { break }
            first = false
            try keys.read(field, key, &s)
        }
        try s.expectEnd()
        return try keys.recorded(newer: &newer)
    }

    /// An event alone: `{"type": …, "v": …, "data": {…}}` (keys in any order; `v` may be left out).
    static func decodeEvent(_ bytes: [UInt8]) throws(CodecError) -> Event {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in
                var s = JSONScanner(raw)
                var type: EventType?, version: Int?, dataStart: Int?
                try s.beginObject()
                var first = true
                while let key = try s.nextKey(first: &first) {
                    if s.keyMatches(key, "type") {
                        let start = s.position
                        let name = try s.readString()
                        guard let known = EventType(rawValue: name) else {
                            throw CodecError(.unknownType, "type \"\(name)\" is not an event type of this version", offset: start)
                        }
                        type = known
                    } else if s.keyMatches(key, "v") {
                        version = try s.readInt()
                    } else if s.keyMatches(key, "data") {
                        s.skipWhitespace()
                        dataStart = s.position
                        try s.skipValue(depth: 1)
                    } else {
                        throw CodecError(.unknownField, "an event has no field \"\(s.keyText(key))\" (it has type, v, data)", offset: key.start)
                    }
                }
                try s.expectEnd()
                guard let type else { throw CodecError(.missingField, "the event has no \"type\"", offset: 0) }
                // `v` left out: the current version.
                let v = version ?? type.currentVersion
                guard (1...type.currentVersion).contains(v) else {
                    throw CodecError(.unsupportedVersion, "v \(v) of \(type.rawValue) is not supported (this version reads v1 to v\(type.currentVersion))", offset: 0)
                }
                guard let dataStart else { throw CodecError(.missingField, "the event has no \"data\"", offset: 0) }
                s.position = dataStart
                return try EventData(&s).event(type, version: v)
            }
        }.get()
    }

    /// `seq` and `prev` of a line that decodes, whichever version wrote it.
    static func envelope(_ line: UnsafeRawBufferPointer) -> (seq: Int, prev: SHA256Digest)? {
        switch try? decodeLine(line) {
        case let .event(recorded)?: return (recorded.seq, recorded.prev)
        case let .newer(newer)?: return (newer.seq, newer.prev)
        case nil: return nil
        }
    }

    static func writeData(_ event: Event, to w: inout JSONWriter) {
        w.beginObject()
        event.visitFields(&w)
        w.endObject()
    }
}

/// The keys of a journal line, in the order the writer puts them.
private enum TopKey {
    case seq, id, type, v, at, actor, device, command, commandEvents, correlation, data, prev, unknown

    static let canonical: [TopKey] = [.seq, .id, .type, .v, .at, .actor, .device, .command, .commandEvents, .correlation, .data, .prev]

    var name: StaticString {
        switch self {
        case .seq: "seq"
        case .id: "id"
        case .type: "type"
        case .v: "v"
        case .at: "at"
        case .actor: "actor"
        case .device: "device"
        case .command: "command"
        case .commandEvents: "commandEvents"
        case .correlation: "correlation"
        case .data: "data"
        case .prev: "prev"
        case .unknown: ""
        }
    }
}

/// One journal line as read: an event of this version, or the envelope of a
/// line that a newer version of ShopEvents wrote.
///
/// ```swift
/// switch try EventLineCodec.decodeLine(bytes) {
/// case let .event(recorded): print(recorded.event.typeName)
/// case let .newer(line): print("\(line.type) v\(line.version): update ShopEvents")
/// }
/// ```
public enum JournalLine: Hashable, Sendable {
    case event(RecordedEvent)
    case newer(NewerEventLine)
}

/// The envelope of a line written by a newer ShopEvents — an event type this
/// version does not know, or a newer `v` of one it does. Its `data` is not
/// read (this version would only guess), but its place in the hash chain is
/// checked like any other line's.
///
/// ```swift
/// if case let .newer(line) = try EventLineCodec.decodeLine(bytes) {
///     print("line \(line.seq): \(line.type) v\(line.version) needs a newer ShopEvents")
/// }
/// ```
public struct NewerEventLine: Hashable, Sendable {
    public var seq: Int
    public var id: EventID
    public var at: Timestamp
    public var actor: String
    public var device: String?
    public var command: CommandID
    public var commandEvents: Int?
    public var prev: SHA256Digest
    /// The event type as written.
    public var type: String
    /// The schema version as written.
    public var version: Int
    /// `true` when the type is known and only its version is newer.
    public var isKnownType: Bool
    /// Where the `type` value starts in the line.
    var typeOffset: Int = 0

    var codecError: CodecError {
        isKnownType
            ? CodecError(.unsupportedVersion, "v \(version) of \(type) was written by a newer ShopEvents (this one reads v\(EventType(rawValue: type)?.currentVersion ?? 1)); update", offset: 0)
            : CodecError(.unknownType, "type \"\(type)\" was written by a newer ShopEvents (this one does not know it); update", offset: typeOffset)
    }
}

/// The keys of a line as the general reader (``EventLineCodec/decodeGeneral(_:newer:)``)
/// reads them, in any order, and the record they make.
private struct LineKeys {
    var seq: Int?, id: UUID?, typeName: String?, type: EventType?, version: Int?, at: Timestamp?, actor: String?
    var device: String?, command: UUID?, commandEvents: Int?, correlation: UUID?, data: EventData?, prev: SHA256Digest?
    /// `data` read before `type`, if it could not be read: only an error if the type turns out to be ours.
    var dataError: CodecError?
    var sawData = false
    var typeOffset = 0
    var seen: UInt16 = 0

    private mutating func once(_ bit: UInt16, _ key: JSONScanner.Key, _ s: JSONScanner) throws(CodecError) {
        if seen & bit != 0 { throw CodecError(.malformedJSON, "key \"\(s.keyText(key))\" appears twice", offset: key.start) }
        seen |= bit
    }

    /// Reads the value of `key`, which names `field`.
    mutating func read(_ field: TopKey, _ key: JSONScanner.Key, _ s: inout JSONScanner) throws(CodecError) {
        switch field {
        case .seq: try once(1, key, s); seq = try s.readInt()
        case .id: try once(2, key, s); id = try s.readUUID("id")
        case .type: try once(4, key, s); try readType(&s)
        case .v: try once(8, key, s); version = try s.readInt()
        case .at: try once(16, key, s); at = try s.readTimestamp("at")
        case .actor: try once(32, key, s); try readActor(&s)
        case .device: try once(64, key, s); device = s.readNull() ? nil : try s.readString()
        case .command: try once(128, key, s); command = try s.readUUID("command")
        case .commandEvents: try once(2048, key, s); try readCommandEvents(&s)
        case .correlation: try once(256, key, s); correlation = s.readNull() ? nil : try s.readUUID("correlation")
        case .data: try once(512, key, s); try readData(&s)
        case .prev: try once(1024, key, s); try readPrev(&s)
        case .unknown: try s.skipValue(depth: 1)
        }
    }

    private mutating func readType(_ s: inout JSONScanner) throws(CodecError) {
        typeOffset = s.position
        let text = try s.readStringBytes()
        let known = text.escaped
            ? EventType(rawValue: s.keyText(text))
            : EventType.named(UnsafeBufferPointer(start: s.base + text.start, count: text.end - text.start))
        if let known {
            type = known
        } else {
            typeName = s.keyText(text)
        }
    }

    private mutating func readActor(_ s: inout JSONScanner) throws(CodecError) {
        let start = s.position
        let text = try s.readString()
        // Never more characters than UTF-8 bytes: the characters are counted only past 100 bytes.
        let bytes = text.utf8.count
        guard bytes > 0, bytes <= Limits.actorLength.upperBound || Limits.actorLength.contains(text.count) else {
            throw CodecError(.invalidField, "actor must be 1 to 100 characters", offset: start)
        }
        actor = text
    }

    private mutating func readCommandEvents(_ s: inout JSONScanner) throws(CodecError) {
        guard !s.readNull() else { return }
        let start = s.position
        let count = try s.readInt()
        guard count >= 2 else {
            throw CodecError(.invalidField, "commandEvents \(count) must be 2 or more (it is written only for commands of several events)", offset: start)
        }
        guard count <= RecordedEvent.maxCommandEvents else {
            throw CodecError(.invalidField, "commandEvents \(count) is more than \(RecordedEvent.maxCommandEvents), more events than any command makes", offset: start)
        }
        commandEvents = count
    }

    private mutating func readData(_ s: inout JSONScanner) throws(CodecError) {
        sawData = true
        if typeName != nil || (type.map { version ?? 1 > $0.currentVersion } ?? false) {
            try s.skipValue(depth: 1)       // a newer version's data: not ours to read (type or `v` not met yet: read, errors kept for later)
            return
        }
        let start = s.position
        do { data = try EventData(&s) } catch {
            guard type == nil || version == nil else { throw error }
            dataError = error
            s.position = start
            try s.skipValue(depth: 1)
        }
    }

    private mutating func readPrev(_ s: inout JSONScanner) throws(CodecError) {
        if let digest = s.readPlain(64, SHA256Digest.parse) {
            prev = digest
            return
        }
        let start = s.position
        let text = try s.readStringBytes()
        guard !text.escaped, let digest = SHA256Digest.parse(UnsafeBufferPointer(start: s.base + text.start, count: text.end - text.start)) else {
            throw CodecError(.invalidField, "prev is not 64 hex digits", offset: start)
        }
        prev = digest
    }

    /// The record the keys make; a line a newer version wrote throws `unsupported_version`, its envelope in `newer`.
    func recorded(newer: inout NewerEventLine?) throws(CodecError) -> RecordedEvent {
        func missing(_ name: String) -> CodecError { CodecError(.missingField, "the line has no \"\(name)\"", offset: 0) }
        guard let seq else { throw missing("seq") }
        guard let id else { throw missing("id") }
        guard let typeText = type?.rawValue ?? typeName else { throw missing("type") }
        guard let version else { throw missing("v") }
        guard let at else { throw missing("at") }
        guard let actor else { throw missing("actor") }
        guard let command else { throw missing("command") }
        guard sawData else { throw missing("data") }
        guard let prev else { throw missing("prev") }
        guard seq >= 1 else { throw CodecError(.invalidField, "seq \(seq) must be 1 or more", offset: 0) }
        guard version >= 1 else { throw CodecError(.invalidField, "v \(version) must be 1 or more", offset: 0) }
        guard let type, version <= type.currentVersion else {
            newer = NewerEventLine(seq: seq, id: EventID(id), at: at, actor: actor, device: device, command: CommandID(command),
                                   commandEvents: commandEvents, prev: prev, type: typeText, version: version,
                                   isKnownType: type != nil, typeOffset: typeOffset)
            throw CodecError(.unsupportedVersion, "\(typeText) v\(version) was written by a newer ShopEvents", offset: 0)
        }
        if let dataError { throw dataError }
        guard let data else { throw missing("data") }
        return RecordedEvent(seq: seq, id: EventID(id), at: at, actor: actor, device: device,
                             command: CommandID(command), commandEvents: commandEvents, correlation: correlation.map(CorrelationID.init),
                             event: try data.event(type, version: version), prev: prev)
    }
}
