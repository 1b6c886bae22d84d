import Foundation

// The sync protocol (docs/SYNC.md, "The protocol"): one JSON object a line over any byte
// stream; the device speaks first and every request gets one response.

/// What a device asks a hub.
///
/// ```swift
/// let request = SyncRequest.pull(after: 41, hash: replicaHead.hash)
/// let line = SyncWire.encode(request)            // {"pull":{"after":41,"hash":"…"}}\n
/// let again = try SyncWire.decodeRequest(Array(line.dropLast()))
/// ```
public enum SyncRequest: Hashable, Sendable {
    /// `{"hello": {"protocol": 1, "device": D, "actor": A}}`
    case hello(protocol: Int, device: String, actor: String)
    /// `{"pull": {"after": SEQ, "hash": HEX}}`: the lines after `SEQ`, if the hub's line `SEQ` has that hash.
    case pull(after: Int, hash: SHA256Digest)
    /// `{"push": {"commands": [...]}}`: at most ``SyncWire/maxCommandsPerPush`` commands, each with its `id` and no `at`.
    case push(commands: [CommandEnvelope])
}

/// What a hub answers.
///
/// ```swift
/// switch try await transport.send(.pull(after: 0, hash: .zero)) {
/// case let .lines(lines, more): print(lines.count, more)
/// case let .error(failure): print(failure)
/// default: break
/// }
/// ```
public enum SyncResponse: Hashable, Sendable {
    /// `{"hello": {"protocol": 1, "household": ID or null, "head": {"seq", "hash"}}}`
    case hello(protocol: Int, household: HouseholdID?, head: JournalHead)
    /// `{"lines": K, "more": BOOL}` and then the K journal lines, byte for byte (without their newlines here).
    case lines([[UInt8]], more: Bool)
    /// `{"results": [...]}`, one for each pushed command, in order.
    case results([PushResult])
    /// `{"error": {"code", "message"}}`: `bad_request`, `diverged`, `unsupported_protocol`, `io_error`, …
    case error(SyncFailure)
}

/// The hub's answer for one pushed command.
public struct PushResult: Hashable, Sendable {
    public var command: CommandID
    /// The `seq`s of its events (the first result's, for a command id the hub already had); empty when rejected.
    public var seqs: [Int]
    /// Why it was rejected; `nil` when accepted.
    public var error: SyncFailure?

    public var ok: Bool { error == nil }

    public init(command: CommandID, seqs: [Int], error: SyncFailure?) {
        self.command = command; self.seqs = seqs; self.error = error
    }
}

/// A refusal with a stable code: a rule's (`already_bought`, `forbidden`, …)
/// or the protocol's (`bad_request`, `diverged`, `unsupported_protocol`).
public struct SyncFailure: ShopError, Hashable, Sendable {
    public var code: String
    public var message: String

    public init(code: String, message: String) { self.code = code; self.message = message }

    static func badRequest(_ message: String) -> SyncFailure { SyncFailure(code: "bad_request", message: message) }
}

/// The protocol on the wire: one JSON object a line (a pull's answer is
/// followed by its journal lines), parsed and written by this package's codec.
///
/// ```swift
/// let bytes = SyncWire.encode(SyncResponse.lines([Array(#"{"seq":1}"#.utf8)], more: false))
/// // {"lines":1,"more":false}\n{"seq":1}\n
/// ```
public enum SyncWire {
    /// The protocol version this package speaks.
    public static let protocolVersion = 1
    /// Requests longer than this are refused (`bad_request`).
    public static let maxRequestBytes = 1 << 20
    /// A push carries at most this many commands.
    public static let maxCommandsPerPush = 1_000

    // MARK: Requests

    public static func encode(_ request: SyncRequest) -> [UInt8] { line(request.json) }

    /// Reads one request line (without its newline); anything malformed is `bad_request`.
    public static func decodeRequest(_ bytes: [UInt8]) throws(SyncFailure) -> SyncRequest {
        guard bytes.count <= maxRequestBytes else {
            throw .badRequest("the request is \(bytes.count) bytes; at most \(maxRequestBytes) are taken")
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            throw .badRequest("the request is not JSON: \(error.message)")
        }
        return try SyncRequest(json: value)
    }

    // MARK: Responses

    /// The response's line, and for `lines` the journal lines after it, each ending in a newline.
    public static func encode(_ response: SyncResponse) -> [UInt8] {
        guard case let .lines(lines, _) = response else { return line(response.json) }
        var bytes = line(response.json)
        for journalLine in lines {
            bytes.append(contentsOf: journalLine)
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Reads one response: its first line from `nextLine`, and for a pull
    /// the journal lines it announces. `nextLine` returns a line without its
    /// newline, or `nil` at the end of the stream.
    public static func readResponse(_ nextLine: () throws -> [UInt8]?) throws -> SyncResponse {
        guard let first = try nextLine() else { throw SyncFailure(code: "hub_unreachable", message: "the hub closed the connection without answering") }
        let value: JSONValue
        do { value = try JSONValue.parse(first) } catch {
            throw SyncFailure(code: "bad_response", message: "the hub's answer is not JSON: \(error.message)")
        }
        if let count = value["lines"]?.intValue {
            guard count >= 0, let more = value["more"]?.boolValue else {
                throw SyncFailure(code: "bad_response", message: "a pull's answer needs \"lines\" ≥ 0 and \"more\"")
            }
            var lines: [[UInt8]] = []
            lines.reserveCapacity(count)
            for index in 0..<count {
                guard let line = try nextLine() else {
                    throw SyncFailure(code: "hub_unreachable", message: "the hub announced \(count) lines and sent \(index)")
                }
                lines.append(line)
            }
            return .lines(lines, more: more)
        }
        return try SyncResponse(json: value)
    }

    // MARK: A hosted hub's hello

    /// A hosted hub's response: as `encode(_:)` writes it, and a
    /// `hello` also names the actor the device's token was enrolled as
    /// (`{"hello": {"protocol", "household", "head", "actor": A}}`), so that a
    /// device given only its token learns whose commands it makes. A reader
    /// that does not know the key passes it over.
    ///
    /// ```swift
    /// let answer = SyncResponse.hello(protocol: 1, household: nil, head: .empty)
    /// let bytes = SyncWire.encode(answer, enrolledActor: "ana")
    /// SyncWire.enrolledActor(inHello: Array(bytes.dropLast()))   // "ana"
    /// ```
    public static func encode(_ response: SyncResponse, enrolledActor actor: String) -> [UInt8] {
        guard case let .object(pairs) = response.json, pairs.count == 1, pairs[0].0 == "hello",
              case let .object(hello) = pairs[0].1 else { return encode(response) }
        return line(.object([("hello", .object(hello + [("actor", .string(actor))]))]))
    }

    /// The actor a hosted hub's `hello` answer names (see ``encode(_:enrolledActor:)``);
    /// `nil` when the line is no hello or names none (an older hub, or a hub over stdio).
    public static func enrolledActor(inHello line: [UInt8]) -> String? {
        guard let value = try? JSONValue.parse(line), let actor = value["hello"]?["actor"]?.stringValue, !actor.isEmpty else { return nil }
        return actor
    }

    /// `value` as one line of compact JSON, with its newline.
    public static func line(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        value.write(to: &writer, indent: nil)
        writer.append(0x0A)
        return writer.takeBytes()
    }
}

// MARK: JSON forms

extension SyncRequest {
    /// The request as JSON (for Codable and the wire alike).
    public var json: JSONValue {
        switch self {
        case let .hello(version, device, actor):
            return .object([("hello", .object([("protocol", .int(version)), ("device", .string(device)), ("actor", .string(actor))]))])
        case let .pull(after, hash):
            return .object([("pull", .object([("after", .int(after)), ("hash", .string(hash.hex))]))])
        case let .push(commands):
            let encoded = commands.map { command in
                (try? JSONValue.parse(CommandCodec.encode(command))) ?? .null
            }
            return .object([("push", .object([("commands", .array(encoded))]))])
        }
    }

    /// Reads a request; anything malformed is `bad_request`.
    public init(json value: JSONValue) throws(SyncFailure) {
        guard case let .object(pairs) = value, pairs.count == 1, case let .object(body) = pairs[0].1 else {
            throw .badRequest("a request is one object with one key: hello, pull or push")
        }
        let fields = JSONValue.object(body)
        func only(_ keys: Set<String>) throws(SyncFailure) {
            for (key, _) in body where !keys.contains(key) {
                throw .badRequest("\(pairs[0].0) has no field \"\(key)\" (it has \(keys.sorted().joined(separator: ", ")))")
            }
        }
        switch pairs[0].0 {
        case "hello":
            try only(["protocol", "device", "actor"])
            guard let version = fields["protocol"]?.intValue, let device = fields["device"]?.stringValue,
                  let actor = fields["actor"]?.stringValue else {
                throw .badRequest("hello needs protocol (a number), device and actor (strings)")
            }
            self = .hello(protocol: version, device: device, actor: actor)
        case "pull":
            // `wait` (seconds, 0…60) is a hosted hub's long poll (docs/HUB.md); a hub that answers at once may pass it over.
            try only(["after", "hash", "wait"])
            if let wait = fields["wait"], !(wait.doubleValue.map { (0...60).contains($0) } ?? false) {
                throw .badRequest("pull's \"wait\" is a number of seconds from 0 to 60")
            }
            guard let after = fields["after"]?.intValue, after >= 0 else { throw .badRequest("pull needs \"after\", a seq ≥ 0") }
            guard let hex = fields["hash"]?.stringValue, let hash = SHA256Digest(hex: hex) else {
                throw .badRequest("pull needs \"hash\", 64 hex digits (all zeros after seq 0)")
            }
            self = .pull(after: after, hash: hash)
        case "push":
            try only(["commands"])
            guard let list = fields["commands"]?.arrayValue else { throw .badRequest("push needs \"commands\", an array") }
            guard list.count <= SyncWire.maxCommandsPerPush else {
                throw .badRequest("a push carries at most \(SyncWire.maxCommandsPerPush) commands; this one has \(list.count)")
            }
            var commands: [CommandEnvelope] = []
            commands.reserveCapacity(list.count)
            for (index, element) in list.enumerated() {
                let command: CommandEnvelope
                do { command = try CommandCodec.decode(Array(element.text().utf8), ids: .random) } catch {
                    throw .badRequest("command \(index + 1) of the push: \(error.code): \(error.message)")
                }
                guard command.id != nil else { throw .badRequest("command \(index + 1) of the push has no \"id\": a pushed command names itself, so that a retry is answered from the record") }
                guard command.at == nil else { throw .badRequest("command \(index + 1) of the push has an \"at\": pushed commands carry none, the hub stamps its own time") }
                commands.append(command)
            }
            self = .push(commands: commands)
        default:
            throw .badRequest("\"\(pairs[0].0)\" is not a request (hello, pull, push)")
        }
    }
}

extension SyncResponse {
    /// The response as JSON. For `lines`, the Codable form carries the lines as strings in
    /// `"data"`; on the wire they follow the header line byte for byte.
    public var json: JSONValue {
        switch self {
        case let .hello(version, household, head):
            return .object([("hello", .object([("protocol", .int(version)),
                                               ("household", household.map { .string($0.description) } ?? .null),
                                               ("head", head.json)]))])
        case let .lines(lines, more):
            return .object([("lines", .int(lines.count)), ("more", .bool(more))])
        case let .results(results):
            return .object([("results", .array(results.map(\.json)))])
        case let .error(failure):
            return .object([("error", failure.json)])
        }
    }

    /// The Codable form: as ``json``, with a pull's lines in `"data"`.
    var codableJSON: JSONValue {
        guard case let .lines(lines, more) = self else { return json }
        return .object([("lines", .int(lines.count)), ("more", .bool(more)),
                        ("data", .array(lines.map { .string(String(decoding: $0, as: UTF8.self)) }))])
    }

    /// Reads a response other than a pull's header (whose lines follow it); see ``SyncWire/readResponse(_:)``.
    public init(json value: JSONValue) throws(SyncFailure) {
        func bad(_ message: String) -> SyncFailure { SyncFailure(code: "bad_response", message: message) }
        if let hello = value["hello"] {
            guard let version = hello["protocol"]?.intValue, let head = hello["head"].flatMap(JournalHead.init(json:)) else {
                throw bad("hello needs protocol and head {seq, hash}")
            }
            var household: HouseholdID?
            if let text = hello["household"]?.stringValue {
                guard let id = HouseholdID(text) else { throw bad("household \"\(text)\" is not a UUID") }
                household = id
            }
            self = .hello(protocol: version, household: household, head: head)
        } else if let count = value["lines"]?.intValue, let more = value["more"]?.boolValue {
            let data = value["data"]?.arrayValue ?? []
            guard data.count == count else { throw bad("a pull's answer announced \(count) lines and carries \(data.count)") }
            self = .lines(data.map { Array(($0.stringValue ?? "").utf8) }, more: more)
        } else if let results = value["results"]?.arrayValue {
            var parsed: [PushResult] = []
            for result in results {
                guard let text = result["command"]?.stringValue, let command = CommandID(text), let ok = result["ok"]?.boolValue else {
                    throw bad("a result needs command (a UUID) and ok")
                }
                if ok {
                    parsed.append(PushResult(command: command, seqs: (result["seqs"]?.arrayValue ?? []).compactMap(\.intValue), error: nil))
                } else {
                    guard let failure = result["error"].flatMap(SyncFailure.init(json:)) else { throw bad("a rejected result needs error {code, message}") }
                    parsed.append(PushResult(command: command, seqs: [], error: failure))
                }
            }
            self = .results(parsed)
        } else if let error = value["error"], let failure = SyncFailure(json: error) {
            self = .error(failure)
        } else {
            throw bad("the hub's answer is none of hello, lines, results, error")
        }
    }
}

extension PushResult {
    var json: JSONValue {
        if let error {
            return .object([("command", .string(command.description)), ("ok", .bool(false)), ("error", error.json)])
        }
        return .object([("command", .string(command.description)), ("ok", .bool(true)), ("seqs", .array(seqs.map(JSONValue.int)))])
    }
}

extension SyncFailure {
    var json: JSONValue { .object([("code", .string(code)), ("message", .string(message))]) }

    init?(json: JSONValue) {
        guard let code = json["code"]?.stringValue, let message = json["message"]?.stringValue else { return nil }
        self.init(code: code, message: message)
    }
}

extension JournalHead {
    var json: JSONValue { .object([("seq", .int(seq)), ("hash", .string(hash.hex))]) }

    init?(json: JSONValue) {
        guard let seq = json["seq"]?.intValue, let hex = json["hash"]?.stringValue, let hash = SHA256Digest(hex: hex) else { return nil }
        self.init(seq: seq, hash: hash)
    }
}

// MARK: Codable, through the same JSON

extension SyncRequest: Codable {
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
    public init(from decoder: any Decoder) throws { try self.init(json: JSONValue(from: decoder)) }
}

extension SyncResponse: Codable {
    public func encode(to encoder: any Encoder) throws { try codableJSON.encode(to: encoder) }
    public init(from decoder: any Decoder) throws { try self.init(json: JSONValue(from: decoder)) }
}
