/// Why bytes could not be read as a journal line or a command. The offset
/// counts bytes from the start of the line (or command text).
///
/// ```swift
/// do { _ = try EventLineCodec.decode(Array("{\"seq\":1".utf8)) }
/// catch let error as CodecError { print(error.code, error.offset) }   // malformed_json 8
/// ```
public struct CodecError: ShopError, Hashable {
    /// What kind of fault; the raw value is the stable ``code``.
    public enum Reason: String, Sendable, CaseIterable {
        /// Not JSON: a syntax error, bad escape, invalid UTF-8, nesting too deep.
        case malformedJSON = "malformed_json"
        /// A required key is absent.
        case missingField = "missing_field"
        /// A key has the wrong type or an impossible value.
        case invalidField = "invalid_field"
        /// A key the command does not have (commands are strict; journal lines ignore unknown keys).
        case unknownField = "unknown_field"
        /// A `type` that is not an event or command of this version.
        case unknownType = "unknown_type"
        /// A `v` newer than the type's current version.
        case unsupportedVersion = "unsupported_version"
        /// A quantity that is not a plain number with at most three fraction
        /// digits (docs/COMMANDS.md, "Values": `1.2345`, `1e3`, `"2"`); the rules' own
        /// `invalid_quantity` has the same code, for one out of range.
        case invalidQuantity = "invalid_quantity"
    }

    public var reason: Reason
    public var detail: String
    /// Byte offset within the line where the problem was found.
    public var offset: Int

    public init(_ reason: Reason, _ detail: String, offset: Int) {
        self.reason = reason; self.detail = detail; self.offset = offset
    }

    public var code: String { reason.rawValue }
    public var message: String { "\(detail) (at byte \(offset) of the line)" }
}
