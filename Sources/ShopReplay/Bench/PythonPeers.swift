import Foundation

/// The Python peers of the benchmark, run in a virtual environment under
/// `.build/` that the bench makes and fills itself. A peer that cannot be had
/// is skipped with a message; the bench goes on.
struct PythonPeers {
    let venv: String
    var python: String { venv + "/bin/python" }
    private(set) var problems: [String] = []

    /// `<package>/.build/bench-venv`, found from where the binary was built.
    static func defaultVenv() -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = binary.deletingLastPathComponent()
        while folder.path != "/" {
            if folder.lastPathComponent == ".build" { return folder.appendingPathComponent("bench-venv").path }
            folder = folder.deletingLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/.build/bench-venv"
    }

    init(venv: String = PythonPeers.defaultVenv()) { self.venv = venv }

    /// Runs a program; its standard output, or `nil` (and the reason noted) if it failed.
    mutating func run(_ executable: String, _ arguments: [String], what: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            problems.append("\(what): cannot start \(executable): \(error.localizedDescription)")
            return nil
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let tail = String(decoding: err, as: UTF8.self).split(separator: "\n").suffix(2).joined(separator: " ")
            problems.append("\(what) failed (exit \(process.terminationStatus)): \(tail)")
            return nil
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Makes the virtual environment and installs `packages` unless `module` already imports.
    mutating func ensure(module: String, packages: [String]) -> Bool {
        let fm = FileManager.default
        if !fm.isExecutableFile(atPath: python) {
            let system = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"].first { fm.isExecutableFile(atPath: $0) }
                ?? "/usr/bin/env"
            let arguments = system == "/usr/bin/env" ? ["python3", "-m", "venv", venv] : ["-m", "venv", venv]
            guard run(system, arguments, what: "making the virtual environment \(venv)") != nil else { return false }
        }
        if run(python, ["-c", "import \(module)"], what: "import \(module)") != nil { return true }
        problems.removeLast()
        return run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + packages,
                   what: "pip install \(packages.joined(separator: " "))") != nil
    }

    static let orjsonScript = #"""
    import json, sys, time, orjson
    path, runs = sys.argv[1], int(sys.argv[2])
    times, count = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        count = 0
        with open(path, "rb") as f:
            for line in f:
                orjson.loads(line)
                count += 1
        times.append(time.perf_counter() - start)
    print(json.dumps({"events": count, "seconds": times, "version": orjson.__version__}))
    """#

    static let eventsourcingScript = #"""
    import json, os, sys, time, tempfile
    path, count, runs, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    from importlib.metadata import version
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    class Household(Aggregate):
        @event("Recorded")
        def record(self, type, data):
            pass

    payloads = []
    with open(path, "rb") as f:
        for line in f:
            line = json.loads(line)
            payloads.append((line["type"], line["data"]))
            if len(payloads) == count:
                break

    writes, reads = [], []
    for run in range(runs):
        folder = tempfile.mkdtemp(prefix="es-bench-")
        os.environ["PERSISTENCE_MODULE"] = "eventsourcing.sqlite"
        os.environ["SQLITE_DBNAME"] = os.path.join(folder, "events.sqlite")
        app = Application()
        start = time.perf_counter()
        household = Household()
        for index, (kind, data) in enumerate(payloads):
            household.record(kind, data)
            if (index + 1) % batch == 0:
                app.save(household)
        app.save(household)
        writes.append(time.perf_counter() - start)
        start = time.perf_counter()
        back = sum(1 for _ in app.events.get(household.id))
        reads.append(time.perf_counter() - start)
        assert back == len(payloads) + 1, back
        os.remove(os.path.join(folder, "events.sqlite"))
    print(json.dumps({"events": len(payloads), "write": writes, "read": reads, "version": version("eventsourcing")}))
    """#
}
