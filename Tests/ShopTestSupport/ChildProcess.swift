import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its standard streams opened in
/// the child (or pipes whose parent ends this object owns), so that the test
/// process never hands a file descriptor to Foundation's `Process` — which,
/// when tests run in parallel, can close a descriptor number twice and so
/// close another test's file.
public final class ChildProcess {
    public enum Stream {
        case null
        case file(String)
        case pipe
    }

    public let pid: pid_t
    /// The parent's end of a piped standard input, standard output.
    public private(set) var input: Int32 = -1
    public private(set) var output: Int32 = -1
    private var status: Int32?

    /// Runs `executable` with `arguments`, in `directory` if given (through `/bin/sh`, as posix_spawn has no chdir here).
    public init(_ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String] = [:],
                stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null, newProcessGroup: Bool = false) throws {
        var argv = [executable] + arguments
        var program = executable
        if let directory {
            program = "/bin/sh"
            argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory, executable] + arguments
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        func attach(_ stream: Stream, to target: Int32, write: Bool) throws -> Int32 {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", write ? O_WRONLY : O_RDONLY, 0)
                return -1
            case let .file(path):
                posix_spawn_file_actions_addopen(&actions, target, path, write ? (O_WRONLY | O_CREAT | O_TRUNC) : O_RDONLY, 0o644)
                return -1
            case .pipe:
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }   // other children must not inherit them
                let (childEnd, parentEnd) = write ? (fds[1], fds[0]) : (fds[0], fds[1])
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                childEnds.append(childEnd)
                return parentEnd
            }
        }
        input = try attach(stdin, to: 0, write: false)
        output = try attach(stdout, to: 1, write: true)
        _ = try attach(stderr, to: 2, write: true)
        var env = ProcessInfo.processInfo.environment
        env["SHOP_JOURNAL"] = nil
        // The tool refuses to write without an actor; a test that wants none says USER="".
        if env["USER", default: ""].isEmpty { env["USER"] = "tester" }
        for (key, value) in environment { env[key] = value }
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if newProcessGroup {
            // Its own process group, so that killGroup reaches the processes it starts (a sync's hub).
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, program, &actions, &attributes, cArguments, cEnvironment)
        for fd in childEnds { close(fd) }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        pid = child
    }

    deinit {
        if input >= 0 { close(input) }
        if output >= 0 { close(output) }
        if status == nil { Glibc.kill(pid, SIGKILL); _ = waitForExit() }
    }

    public func write(_ text: String) {
        guard input >= 0 else { return }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }

    public func closeInput() {
        if input >= 0 { close(input); input = -1 }
    }

    public var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid { status = Self.decode(raw); return false }
        return true
    }

    /// Waits for the child; its exit code, or 128 + the signal that ended it.
    @discardableResult
    public func waitForExit() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
        let decoded = Self.decode(raw)
        status = decoded
        return decoded
    }

    /// Waits at most `timeout` seconds for the child; its status as ``waitForExit()`` gives it, or
    /// `nil` if it is still running then.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            guard Date() < deadline else { return nil }
            usleep(20_000)
        }
        return status
    }

    /// SIGTERM, then its status; one that has not stopped `within` seconds later is killed
    /// (SIGKILL), and `nil` says so: a test that stops a server never waits for ever.
    public func stop(within timeout: Double) -> Int32? {
        kill(SIGTERM)
        if let status = waitForExit(timeout: timeout) { return status }
        kill(SIGKILL)
        waitForExit()
        return nil
    }

    static func decode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
    }

    public func kill(_ signal: Int32) { Glibc.kill(pid, signal) }

    /// Signals the child's whole process group (started with `newProcessGroup`).
    public func killGroup(_ signal: Int32) { Glibc.kill(-pid, signal) }

    private var pendingOutput: [UInt8] = []

    /// The next line the child writes to its piped standard output, waiting at
    /// most `timeout` seconds; `nil` on timeout or when the output closes.
    public func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pendingOutput.firstIndex(of: 0x0A) {
                let line = String(decoding: pendingOutput[..<newline], as: UTF8.self)
                pendingOutput.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard output >= 0, left > 0 else { return nil }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, Int32(left * 1000) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = Glibc.read(output, &chunk, chunk.count)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            pendingOutput += chunk[0..<n]
        }
    }
}
