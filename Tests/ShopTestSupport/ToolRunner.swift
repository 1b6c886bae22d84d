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

    /// `$SHOP_REPLAY` if set (the Server package's tests, whose build folder
    /// has no shop-replay), else next to the test runner in the build folder.
    public static let binary: String = {
        if let given = ProcessInfo.processInfo.environment["SHOP_REPLAY"], !given.isEmpty { return given }
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
        let id = UUID().uuidString
        let input = path("stdin-\(id)"), output = path("stdout-\(id)"), errors = path("stderr-\(id)")
        Scratch.write(Array(stdin.utf8), to: input)
        defer { for file in [input, output, errors] { try? FileManager.default.removeItem(atPath: file) } }
        let child = try ChildProcess(executable ?? Self.binary, arguments, directory: folder.path, environment: environment,
                                     stdin: .file(input), stdout: .file(output), stderr: .file(errors))
        let status = child.waitForExit()
        return Result(status: status,
                      stdout: String(decoding: Scratch.bytes(output), as: UTF8.self),
                      stderr: String(decoding: Scratch.bytes(errors), as: UTF8.self))
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}
