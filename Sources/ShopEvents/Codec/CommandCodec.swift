import Foundation

/// Reads and writes commands as JSON objects, one per line for `shop-replay apply`:
/// `{"type": …, "id": UUID?, "actor": …?, "at": …?, "expectedSeq": …?, "correlation": …?, "device": …?, "data": {…}}`.
///
/// Commands are strict: an unknown key, at the top or in `data`, is an error,
/// so a typo never silently drops a field. Ids of created things may be
/// omitted; they come from the injected generator.
///
/// ```swift
/// let text = #"{"type":"CreateList","actor":"ana","data":{"name":"Weekly"}}"#
/// let request = try CommandCodec.decode(Array(text.utf8), ids: .random)
/// ```
///
/// A `CreateHousehold` that names no household takes `household` when one is
/// given — a new household's replica knows the id its hub holds it under —
/// and a new id otherwise:
///
/// ```swift
/// let create = #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#
/// let request = try CommandCodec.decode(Array(create.utf8), ids: .random, household: replica.household)
/// ```
public enum CommandCodec {
    public static func decode(_ bytes: [UInt8], ids: IDGenerator, household: HouseholdID? = nil) throws(CodecError) -> CommandEnvelope {
        try bytes.withUnsafeBytes { raw in Result { () throws(CodecError) in try decode(raw, ids: ids, household: household) } }.get()
    }

    public static func decode(_ text: UnsafeRawBufferPointer, ids: IDGenerator, household: HouseholdID? = nil) throws(CodecError) -> CommandEnvelope {
        var s = JSONScanner(text)
        var type: CommandType?, id: UUID?, actor: String?, at: Timestamp?, expectedSeq: Int?
        var correlation: UUID?, device: String?, data: DataFields?
        try s.beginObject()
        var first = true
        var seen = Set<String>()
        while let key = try s.nextKey(first: &first) {
            guard seen.insert(s.keyText(key)).inserted else {
                throw CodecError(.malformedJSON, "key \"\(s.keyText(key))\" appears twice", offset: key.start)
            }
            if s.keyMatches(key, "type") {
                let start = s.position
                let name = try s.readString()
                guard let known = CommandType(rawValue: name) else {
                    throw CodecError(.unknownType, "type \"\(name)\" is not a command (CreateHousehold, CreateItem, AddItemToList, PurchaseItem, …)", offset: start)
                }
                type = known
            }
            else if s.keyMatches(key, "id") { id = s.readNull() ? nil : try s.readUUID("id") }
            else if s.keyMatches(key, "actor") { actor = s.readNull() ? nil : try s.readString() }
            else if s.keyMatches(key, "at") { at = s.readNull() ? nil : try s.readTimestamp("at") }
            else if s.keyMatches(key, "expectedSeq") { expectedSeq = s.readNull() ? nil : try s.readInt() }
            else if s.keyMatches(key, "correlation") { correlation = s.readNull() ? nil : try s.readUUID("correlation") }
            else if s.keyMatches(key, "device") { device = s.readNull() ? nil : try s.readString() }
            else if s.keyMatches(key, "data") { data = try DataFields(&s) }
            else {
                throw CodecError(.unknownField, "a command has no field \"\(s.keyText(key))\" (it has type, id, actor, at, expectedSeq, correlation, device, data)", offset: key.start)
            }
        }
        try s.expectEnd()
        guard let type else { throw CodecError(.missingField, "the command has no \"type\"", offset: 0) }
        var fields: DataFields
        if let data { fields = data } else {
            var empty = JSONScanner(UnsafeRawBufferPointer(start: nil, count: 0))
            fields = try emptyData(&empty)
        }
        let command = try decodeData(type, &fields, ids: ids, household: household)
        try fields.requireAllUsed("\(type.rawValue) data")
        return CommandEnvelope(command, id: id.map(CommandID.init), actor: actor, at: at, expectedSeq: expectedSeq,
                               correlation: correlation.map(CorrelationID.init), device: device)
    }

    private static func emptyData(_ scanner: inout JSONScanner) throws(CodecError) -> DataFields {
        let braces: [UInt8] = [UInt8(ascii: "{"), UInt8(ascii: "}")]
        return try braces.withUnsafeBytes { raw in
            Result { () throws(CodecError) in
                var s = JSONScanner(raw)
                return try DataFields(&s)
            }
        }.get()
    }

    /// The command of `type` from its data: read as its declaration says (``Command/read(_:from:ids:household:)``).
    static func decodeData(_ type: CommandType, _ d: inout DataFields, ids: IDGenerator, household: HouseholdID?) throws(CodecError) -> Command {
        try Command.read(type, from: &d, ids: ids, household: household)
    }

    /// One line of JSON for the command (without a newline).
    public static func encode(_ request: CommandEnvelope) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", request.command.typeName)
        w.field("id", request.id)
        w.field("actor", request.actor)
        w.field("at", request.at)
        w.field("expectedSeq", request.expectedSeq)
        w.field("correlation", request.correlation)
        w.field("device", request.device)
        w.key("data")
        writeData(request.command, to: &w)
        w.endObject()
        return w.takeBytes()
    }

    /// The command's `data` object, its fields as its declaration writes them (``Command/visitFields(_:)``).
    static func writeData(_ command: Command, to w: inout JSONWriter) {
        w.beginObject()
        command.visitFields(&w)
        w.endObject()
    }
}

/// The codec's reader and writer are the declarations' (`CommandDeclarations.swift`).
extension DataFields: CommandDataReader {}
extension JSONWriter: CommandFieldVisitor {}
