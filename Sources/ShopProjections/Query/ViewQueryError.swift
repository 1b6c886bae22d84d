import ShopEvents

/// Why a ``ViewQuery`` has no answer: a stable code and a message naming the
/// option and the value.
///
/// ```swift
/// do { _ = try ViewQuery(name: "nope", options: [:]) } catch { print(error.code.rawValue) }   // unknown_view
/// ```
public struct ViewQueryError: Error, Hashable, Sendable {
    public enum Code: String, CaseIterable, Hashable, Sendable {
        case unknownView = "unknown_view"
        case unknownList = "unknown_list"
        case unknownItem = "unknown_item"
        case unknownStore = "unknown_store"
        case unknownMember = "unknown_member"
        /// Two deleted things share the name given, none live.
        case ambiguousName = "ambiguous_name"
        /// A list view, and the household has no lists.
        case noList = "no_list"
        /// An option the view does not take, a limit out of 1…100,000, a time that does not parse.
        case badOption = "bad_option"

        /// Something the query names is not there (what the hub answers 404), rather than a wrong question (400).
        public var isUnknown: Bool { [.unknownView, .unknownList, .unknownItem, .unknownStore, .unknownMember].contains(self) }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    /// A lookup's refusal (``ShopState/find(item:in:)``) as the query's.
    init(_ violation: RuleViolation) {
        self.init(Code(rawValue: violation.code) ?? .badOption, violation.message)
    }
}
