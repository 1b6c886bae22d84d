import Foundation
import Logging
import ShopEvents
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One JSON object a line on standard error: the time, the level, the
/// message and its metadata as strings, keys in order. What the routes log
/// carries no token and no command data.
///
/// Written with the core's JSON writer and its time text, in one `write` a
/// line: a line a request, so this is on every request's path (Foundation's
/// date formatter and `JSONSerialization` took a quarter of the hub's CPU).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// Lines are written whole and one at a time.
    private static let output = Mutex(STDERR_FILENO)

    /// `level`: the least level written (`LOG_LEVEL`).
    init(label: String, level: Logger.Level = .info) {
        self.label = label
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        Self.emit(Self.line(time: Timestamp(Date()), level: event.level, message: event.message.description,
                             metadata: metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })))
    }

    /// The line's bytes, its newline included: `time`, `level`, `msg`, then the metadata; all keys sorted.
    static func line(time: Timestamp, level: Logger.Level, message: String, metadata: Logger.Metadata) -> [UInt8] {
        var fields: [(String, JSONValue)] = [("time", .string(time.description)), ("level", .string(level.rawValue)), ("msg", .string(message))]
        for (key, value) in metadata where !["time", "level", "msg"].contains(key) { fields.append((key, .string(value.description))) }
        fields.sort { $0.0 < $1.0 }
        return JSONValue.object(fields).utf8(terminator: 0x0A)
    }

    private static func emit(_ line: [UInt8]) {
        output.withLock { fd in
            var done = 0
            while done < line.count {
                let n = line.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress else { return 0 }   // never: the loop runs while bytes are left
                    return write(fd, base + done, bytes.count - done)
                }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return }   // a log that cannot be written is dropped, never the request
                done += n
            }
        }
    }
}
