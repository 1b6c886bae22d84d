import Foundation

/// Runs the built `shop-replay` as a separate process, as a user would.
public struct ToolRunner {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        /// The standard output parsed as one JSON document.
        public func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
        public func object() throws -> [String: Any] { try json() as? [String: Any] ?? [:] }
    }

    /// Next to the test runner in the build folder.
    public static let binary: String = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shop-replay").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return runner.deletingLastPathComponent().appendingPathComponent("shop-replay").path
    }()

    public let folder: URL

    public init() { folder = Scratch.directory() }

    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @discardableResult
    public func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:],
                    executable: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? Self.binary)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var env = ProcessInfo.processInfo.environment
        env["SHOP_JOURNAL"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let id = UUID().uuidString
        let input = path("stdin-\(id)"), output = path("stdout-\(id)"), errors = path("stderr-\(id)")
        Scratch.write(Array(stdin.utf8), to: input)
        Scratch.write([], to: output)
        Scratch.write([], to: errors)
        defer { for file in [input, output, errors] { try? FileManager.default.removeItem(atPath: file) } }
        process.standardInput = FileHandle(forReadingAtPath: input)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: Scratch.bytes(output), as: UTF8.self),
                      stderr: String(decoding: Scratch.bytes(errors), as: UTF8.self))
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}
