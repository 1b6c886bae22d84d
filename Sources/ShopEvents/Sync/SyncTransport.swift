import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a device reaches its hub: send one request, get its one response.
/// An app carries the messages over its own HTTPS or WebSocket connection by
/// implementing this; ``ProcessTransport`` runs a command that speaks the
/// protocol on its standard input and output.
///
/// ```swift
/// struct HTTPSTransport: SyncTransport {
///     let url: URL
///     func send(_ request: SyncRequest) async throws -> SyncResponse {
///         var post = URLRequest(url: url)
///         post.httpMethod = "POST"
///         post.httpBody = Data(SyncWire.encode(request))
///         let (body, _) = try await URLSession.shared.data(for: post)
///         var lines = body.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
///         return try SyncWire.readResponse { lines.next() }
///     }
/// }
/// ```
public protocol SyncTransport: Sendable {
    func send(_ request: SyncRequest) async throws -> SyncResponse
}

/// A hub reached through a command run by `/bin/sh -c` — `shop-replay hub
/// --journal …` here, or `ssh host shop-replay hub …` — speaking the protocol
/// on its standard input and output. Its blocking reads and writes run on a
/// queue of its own, never on the cooperative pool. Writing to a hub that has
/// gone away must not kill the process, so it ignores `SIGPIPE`.
///
/// ```swift
/// let hub = try ProcessTransport(command: "ssh home shop-replay hub --journal /srv/home.ndjson")
/// defer { hub.close() }
/// let report = try await SyncClient(journal: "phone.ndjson").sync(over: hub)
/// ```
public final class ProcessTransport: SyncTransport, @unchecked Sendable {
    // @unchecked: the process and its pipes are used only on `queue`, and
    // `close()` goes through it too.
    private let queue = DispatchQueue(label: "ShopEvents.ProcessTransport")
    private let process = Process()
    private let input: Int32, output: Int32
    private var lines: DescriptorLines
    private var closed = false

    /// Starts `command` with `/bin/sh -c`.
    public init(command: String) throws {
        signal(SIGPIPE, SIG_IGN)
        let toHub = Pipe(), fromHub = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardInput = toHub
        process.standardOutput = fromHub
        do { try process.run() } catch {
            throw SyncFailure(code: "hub_unreachable", message: "could not start the hub command `\(command)`: \(error.localizedDescription)")
        }
        input = dup(toHub.fileHandleForWriting.fileDescriptor)
        output = dup(fromHub.fileHandleForReading.fileDescriptor)
        try? toHub.fileHandleForWriting.close()
        try? fromHub.fileHandleForReading.close()
        try? toHub.fileHandleForReading.close()
        try? fromHub.fileHandleForWriting.close()
        lines = DescriptorLines(fd: output, maxLine: JournalLines.maxLineBytes)
    }

    // Not `close()`: the last reference may go on `queue` itself (a task's
    // `send` finishing there), where `queue.sync` would trap; with no
    // reference left nothing else runs on the queue.
    deinit { closeNow() }

    public func send(_ request: SyncRequest) async throws -> SyncResponse {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.exchange(request) })
            }
        }
    }

    /// The same, blocking the calling thread: for a tool's main thread.
    public func sendWaiting(_ request: SyncRequest) throws -> SyncResponse {
        try queue.sync { try exchange(request) }
    }

    private func exchange(_ request: SyncRequest) throws -> SyncResponse {
        guard !closed else { throw SyncFailure(code: "hub_unreachable", message: "the connection to the hub is closed") }
        do {
            try DescriptorLines.writeAll(SyncWire.encode(request), to: input)
        } catch {
            throw SyncFailure(code: "hub_unreachable", message: "the hub stopped reading (\(error.message))")
        }
        return try SyncWire.readResponse {
            switch try lines.next() {
            case let .line(bytes)?: return bytes
            case .tooLong?: throw SyncFailure(code: "bad_response", message: "the hub sent a line longer than \(JournalLines.maxLineBytes) bytes")
            case nil: return nil
            }
        }
    }

    /// Ends the hub's input (it stops at the end of input) and waits for it to exit.
    public func close() {
        queue.sync { closeNow() }
    }

    private func closeNow() {
        guard !closed else { return }
        closed = true
        _ = Posix.close(input)
        if process.isRunning { process.waitUntilExit() }
        _ = Posix.close(output)
    }
}
