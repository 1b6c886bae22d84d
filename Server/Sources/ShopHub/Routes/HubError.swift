import Foundation
import HTTPTypes
import ShopEvents

/// A refused request: its HTTP status and a stable code, answered as
/// `{"error": {"code": …, "message": …}}`. A refused request writes nothing.
///
/// ```swift
/// let refusal = HubError.forbidden("the token is another household's")
/// print(refusal.status.code, refusal.code)   // 403 forbidden
/// ```
public struct HubError: Error, Hashable, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Seconds, for `Retry-After` (429 and 503).
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status; self.code = code; self.message = message; self.retryAfter = retryAfter
    }

    public static func badRequest(_ message: String) -> HubError { HubError(.badRequest, "bad_request", message) }
    public static func unauthorized(_ message: String) -> HubError { HubError(.unauthorized, "unauthorized", message) }
    public static func forbidden(_ message: String) -> HubError { HubError(.forbidden, "forbidden", message) }
    public static func unknownHousehold(_ household: String) -> HubError {
        HubError(.notFound, "unknown_household", "there is no household \(bounded(household)) on this hub")
    }
    /// A bearer token the hub does not know, or one revoked (the two are not told apart).
    public static let unknownToken = HubError(.unauthorized, "unauthorized", "the token is unknown or revoked")
    public static let unknownInvite = HubError(.notFound, "unknown_invite", "the code is unknown, used, cancelled or expired: ask an owner for a new one")
    /// A token whose device's member was removed from the household (`RemoveMember`): every device of that
    /// member stopped working at the removal, and stays so if the member is added again (a new invite joins anew).
    public static let memberRemoved = HubError(.unauthorized, "member_removed",
                                               "this device's member was removed from the household, so its token no longer works; an owner's new invite code joins again")
    /// A body of a JSON route sent as anything but `application/json` (a form another website posts, for one).
    public static func unsupportedMediaType(_ sent: String?) -> HubError {
        HubError(.unsupportedMediaType, "unsupported_media_type",
                 "this route takes a JSON body with Content-Type: application/json, not \(sent.map { bounded($0) } ?? "none")")
    }
    public static func notFound(_ message: String) -> HubError { HubError(.notFound, "not_found", message) }
    public static func methodNotAllowed(_ message: String) -> HubError { HubError(.methodNotAllowed, "method_not_allowed", message) }
    public static func conflict(_ code: String, _ message: String) -> HubError { HubError(.conflict, code, message) }
    public static func tooLarge(_ limit: Int) -> HubError {
        HubError(.contentTooLarge, "too_large", "the body is over \(limit) bytes")
    }
    public static func rateLimited(_ message: String, retryAfter: Int) -> HubError {
        HubError(.tooManyRequests, "rate_limited", message, retryAfter: retryAfter)
    }
    public static func unavailable(_ message: String) -> HubError {
        HubError(.serviceUnavailable, "unavailable", message, retryAfter: 5)
    }

    /// The body: one JSON object and a newline. A message is at most ``maxMessage`` characters, whatever a
    /// client sent that it names.
    public var body: [UInt8] {
        SyncWire.line(.object([("error", .object([("code", .string(code)), ("message", .string(Self.bounded(message, to: Self.maxMessage)))]))]))
    }

    /// The longest message an answer carries.
    public static let maxMessage = 1_000

    /// What a client sent, as an answer or a log line may name it: its first `limit` characters, and `…`
    /// if there were more (a 70 KB household id is not echoed, nor logged, whole).
    ///
    /// ```swift
    /// print(HubError.bounded(String(repeating: "a", count: 70_000)).count)   // 65: the first 64 characters and "…"
    /// ```
    public static func bounded(_ text: some StringProtocol, to limit: Int = 64) -> String {
        let head = text.prefix(limit)
        return head.endIndex == text.endIndex ? String(text) : String(head) + "…"
    }
}
