import Foundation
import Testing

/// Every ```swift example in a doc comment under Sources is in DocExamples.swift,
/// line for line, so building the tests compiles each one. When a doc example
/// changes, this test names it; regenerate or edit its copy to match.
@Suite struct DocExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// `file #n` → the example's lines, without `/// `.
    static func docExamples() throws -> [(key: String, lines: [String])] {
        var found: [(String, [String])] = []
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
        for file in files {
            let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0, number = 0
            while index < lines.count {
                if lines[index].trimmingCharacters(in: .whitespaces) == "/// ```swift" {
                    number += 1
                    var body: [String] = []
                    index += 1
                    while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "/// ```" {
                        let text = lines[index].trimmingCharacters(in: .whitespaces)
                        body.append(text.hasPrefix("/// ") ? String(text.dropFirst(4)) : String(text.dropFirst(3)))
                        index += 1
                    }
                    found.append(("Sources/\(file) #\(number)", body))
                }
                index += 1
            }
        }
        return found
    }

    /// `file #n` → the body of its function in DocExamples.swift, dedented.
    static func compiledExamples() throws -> [String: [String]] {
        let text = try String(contentsOf: root.appendingPathComponent("Tests/DocExampleTests/DocExamples.swift"), encoding: .utf8)
        var result: [String: [String]] = [:]
        var key: String?, body: [String] = [], inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("// Sources/") { key = String(line.dropFirst(3)); continue }
            if line.hasPrefix("@MainActor func example_") { inside = true; body = []; continue }   // async only where it awaits
            if inside, line == "}" {
                if let key { result[key] = body }
                inside = false
                continue
            }
            if inside { body.append(line.hasPrefix("    ") ? String(line.dropFirst(4)) : line) }
        }
        return result
    }

    @Test func everyDocExampleIsCompiled() throws {
        let docs = try Self.docExamples()
        let compiled = try Self.compiledExamples()
        #expect(docs.count >= 50)
        for (key, lines) in docs {
            #expect(compiled[key] == lines, "\(key): the doc example and its compiled copy in DocExamples.swift differ")
        }
        #expect(Set(compiled.keys) == Set(docs.map(\.key)), "DocExamples.swift has examples no doc comment has")
    }
}
