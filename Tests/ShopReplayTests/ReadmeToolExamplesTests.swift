import Foundation
import Testing
import ShopTestSupport

/// Every `shop-replay` command the README shows, run in order in a fresh
/// folder as a new user would (after `demo`), must succeed and show something
/// real: a README example that prints nothing teaches nothing.
@Suite struct ReadmeToolExamplesTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../README.md").standardized.path

    /// The shell lines of the README that run `swift run shop-replay`.
    static func examples() throws -> [String] {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        var inShell = false
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            guard inShell, line.contains("swift run shop-replay") else { continue }
            lines.append(String(line))
        }
        return lines
    }

    @Test func everyExampleShowsSomethingReal() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 8)
        #expect(examples.first?.hasPrefix("swift run shop-replay demo") == true, "the README opens with the demo")
        let tool = ToolRunner()
        defer { tool.remove() }
        var seen = Set<String>()
        for example in examples where seen.insert(example).inserted {
            let command = example.replacingOccurrences(of: "swift run shop-replay", with: "\"$0\"")
            let result = try tool.run(["-c", command, ToolRunner.binary], executable: "/bin/sh")
            #expect(result.status == 0, "\(example)\n\(result.stderr)")
            #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(example) printed nothing")
            for empty in ["No purchases.", "No lists.", "No items.", "\"purchases\" : [\n\n  ]"] {
                #expect(!result.stdout.contains(empty), "\(example) shows nothing: \(result.stdout.prefix(300))")
            }
            // "0 purchases" as a count of its own, not the end of "160 purchases".
            #expect(result.stdout.firstMatch(of: /(^|[^0-9])0 purchases/) == nil, "\(example) shows nothing: \(result.stdout.prefix(300))")
        }
    }
}
