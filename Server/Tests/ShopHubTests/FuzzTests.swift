import Foundation
import ShopEvents
import ShopTestSupport
import Testing

/// schemathesis (from PyPI, in a virtual environment CI makes under
/// `.build/venv`) fuzzes every route of `Server/openapi.json` against a
/// running hub: no 5xx, no crash, no answer outside the document.
@Suite("hosted hub: fuzzed against its OpenAPI document")
struct FuzzTests {
    /// `$SCHEMATHESIS`, or `.build/venv/bin/schemathesis` at the repository's root.
    static var schemathesis: String? {
        if let given = ProcessInfo.processInfo.environment["SCHEMATHESIS"], FileManager.default.isExecutableFile(atPath: given) { return given }
        let local = Programs.repository.appendingPathComponent(".build/venv/bin/schemathesis").path
        return FileManager.default.isExecutableFile(atPath: local) ? local : nil
    }

    static let notInstalled: Comment = "schemathesis is not installed: `python3 -m venv .build/venv && .build/venv/bin/pip install schemathesis` (CI does)"

    @Test("schemathesis finds no server error, no crash and no undocumented answer on any route", .enabled(if: schemathesis != nil, notInstalled))
    func schemathesisFindsNothing() async throws { try await Self.fuzz(.files) }

    @Test("schemathesis finds no server error, no crash and no undocumented answer on any route — on PostgreSQL",
          .enabled(if: schemathesis != nil, notInstalled), .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)),
          arguments: [1, 2, 3])
    func schemathesisFindsNothingOnPostgres(processes: Int) async throws { try await Self.fuzz(.postgres, processes: processes) }

    /// With several `processes` over one database, the household is made through the first and fuzzed through the last.
    static func fuzz(_ backend: Backend, processes: Int = 1) async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hub = try HubProcess(data: try backend.newStore(in: folder), backend: backend,
                                 arguments: ["--requests-per-second", "1000", "--households-per-hour", "100000", "--joins-per-minute", "100000",
                                             "--max-wait", "1"])   // a generated long poll waits a second, not a minute
        let (household, _, _) = try HostedHousehold.make(on: hub, world: SyncWorld())
        var siblings: [HubProcess] = []
        for _ in 1..<processes {
            siblings.append(try hub.sibling(arguments: ["--requests-per-second", "1000", "--households-per-hour", "100000",
                                                        "--joins-per-minute", "100000", "--max-wait", "1"]))
        }
        let fuzzed = siblings.last ?? hub
        let tool = ToolRunner()
        defer { tool.remove() }
        let report = tool.path("junit.xml"), config = tool.path("schemathesis.toml")
        // The household's id in every path, the owner's token on every request; generated bodies for the rest.
        Scratch.write(Array("[parameters]\n\"path.household\" = \"\(household.id)\"\n".utf8), to: config)
        let result = try tool.run([
            "--config-file", config,
            "run", Programs.repository.appendingPathComponent("Server/openapi.json").path,
            "--url", fuzzed.base,
            "--header", "Authorization: Bearer \(household.ownerToken)",
            "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
            "--max-examples", "40", "--seed", "1",
            "--report", "junit", "--report-junit-path", report,
        ], environment: ["PYTHONWARNINGS": "ignore", "SCHEMATHESIS_HOOKS": ""], executable: Self.schemathesis!)
        let alive = try await HTTP.call("GET", fuzzed.base + "/healthz")
        #expect(alive.status == 200, "the hub survived the fuzzing")
        #expect(result.status == 0, "schemathesis: \(result.stdout.suffix(4000)) \(result.stderr.suffix(2000))")
        for sibling in siblings { #expect(sibling.terminate() == 0) }
        #expect(hub.terminate() == 0)
        _ = household
    }
}
