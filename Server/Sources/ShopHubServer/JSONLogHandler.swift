import Foundation
import Logging
import Synchronization

/// One JSON object a line on standard error: the time, the level, the
/// message and its metadata as strings. What the routes log carries no token
/// and no command data.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    private static let output = Mutex(FileHandle.standardError)

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let (level, message, explicit) = (event.level, event.message, event.metadata)
        var fields: [String: String] = ["time": ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds]),
                                        "level": level.rawValue, "msg": message.description]
        for (key, value) in metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }) {
            fields[key] = value.description
        }
        guard var data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(0x0A)
        Self.output.withLock { $0.write(data) }
    }
}
