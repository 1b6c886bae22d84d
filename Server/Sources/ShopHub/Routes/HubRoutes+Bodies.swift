import Foundation
import Hummingbird
import NIOCore
import ShopEvents

/// What the routes read of a request: its body (within a limit), a JSON object's fields, names.
extension HubRoutes {
    static func body(_ request: Request, limit: Int) async throws -> [UInt8] {
        var buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch { throw HubError.tooLarge(limit) }
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// The body as a JSON object; `bad_request` if it is not one.
    static func object(_ request: Request, limit: Int) async throws -> [String: JSONValue] {
        let bytes = try await body(request, limit: limit)
        guard case let .object(pairs)? = try? JSONValue.parse(bytes) else { throw HubError.badRequest("the body is a JSON object") }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// A device's or an actor's name: 1 to 100 characters, no control characters.
    static func name(_ body: [String: JSONValue], _ key: String) throws -> String {
        guard let text = body[key]?.stringValue else { throw HubError.badRequest("\"\(key)\" is required, a string") }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw HubError.badRequest("\"\(key)\" is 1 to 100 characters with no control characters")
        }
        return trimmed
    }

    /// `unsupported_media_type` (415) unless the body is declared `application/json` (parameters such as
    /// `; charset=utf-8` allowed): a plain form another website posts is refused before any work.
    static func requireJSON(_ request: Request) throws {
        let sent = request.headers[.contentType]
        let type = sent?.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingBlanks.lowercased()
        guard type == "application/json" else { throw HubError.unsupportedMediaType(sent) }
    }

    /// A path's parameter as it was meant: the router hands a segment over as sent ("Ana's phone" arrives as Ana's%20phone).
    static func parameter(_ context: HubRequestContext, _ name: String) -> String? {
        context.parameters.get(name).map { $0.removingPercentEncoding ?? $0 }
    }
}
