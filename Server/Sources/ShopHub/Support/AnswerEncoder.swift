import HTTPTypes
import Hummingbird
import NIOCore
import ShopEvents

/// How the routes' answers (``ResponseEncodable`` values) are written: one line of compact JSON, its keys in
/// the order the type encodes them, `Content-Type: application/json`. The same bytes ``SyncWire/line(_:)``
/// writes (Foundation's `JSONEncoder` does not keep the order of keys on Linux).
///
/// ```swift
/// struct Status: ResponseEncodable { let status: String }
/// print(String(decoding: try AnswerEncoder.json(Status(status: "ok")), as: UTF8.self))   // {"status":"ok"}
/// ```
public struct AnswerEncoder: ResponseEncoder {
    public init() {}

    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: try Self.json(value))))
    }

    /// `value`'s JSON and a newline.
    public static func json(_ value: some Encodable) throws -> [UInt8] {
        let root = Node()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return SyncWire.line(root.value)
    }
}

/// A value being encoded: filled in by the containers, read once the whole value is written.
private final class Node {
    enum Kind { case empty, value(JSONValue), object([(String, Node)]), array([Node]) }
    var kind = Kind.empty

    var value: JSONValue {
        switch kind {
        case .empty: .null
        case let .value(value): value
        case let .object(pairs): .object(pairs.map { ($0.0, $0.1.value) })
        case let .array(nodes): .array(nodes.map(\.value))
        }
    }

    /// The member `key` of this object (made an object if it is not one yet): a key given twice is written once, last.
    func member(_ key: String) -> Node {
        var pairs: [(String, Node)] = if case let .object(pairs) = kind { pairs } else { [] }
        let node = Node()
        if let index = pairs.firstIndex(where: { $0.0 == key }) { pairs[index].1 = node } else { pairs.append((key, node)) }
        kind = .object(pairs)
        return node
    }

    func element() -> Node {
        var nodes: [Node] = if case let .array(nodes) = kind { nodes } else { [] }
        let node = Node()
        nodes.append(node)
        kind = .array(nodes)
        return node
    }

    func set(_ value: some Encodable, _ codingPath: [any CodingKey]) throws {
        switch value {
        case let text as String: kind = .value(.string(text))
        case let flag as Bool: kind = .value(.bool(flag))
        case let number as Int: kind = .value(.int(number))
        case let number as Int64: kind = .value(.int(Int(number)))
        case let number as Double: kind = .value(.double(number))
        case let json as JSONValue: kind = .value(json)
        default: try value.encode(to: TreeEncoder(node: self, codingPath: codingPath))
        }
    }
}

private struct TreeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.kind {} else { node.kind = .object([]) }
        return KeyedEncodingContainer(Keyed(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.kind {} else { node.kind = .array([]) }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).kind = .value(.null) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try node.member(key.stringValue).set(value, codingPath + [key])
    }
    mutating func nestedContainer<Nested: CodingKey>(keyedBy _: Nested.Type, forKey key: Key) -> KeyedEncodingContainer<Nested> {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: Nested.self)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]) }
}

private struct Unkeyed: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { if case let .array(nodes) = node.kind { nodes.count } else { 0 } }

    mutating func encodeNil() throws { node.element().kind = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { try node.element().set(value, codingPath) }
    mutating func nestedContainer<Nested: CodingKey>(keyedBy _: Nested.Type) -> KeyedEncodingContainer<Nested> {
        TreeEncoder(node: node.element(), codingPath: codingPath).container(keyedBy: Nested.self)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { TreeEncoder(node: node.element(), codingPath: codingPath).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.element(), codingPath: codingPath) }
}

private struct Single: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.kind = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { try node.set(value, codingPath) }
}
