import Foundation
import ShopTestSupport
import Testing

/// Every ```swift example in a doc comment under Sources is in DocExamples.swift,
/// line for line, so building the tests compiles each one. When a doc example
/// changes, this test names it; regenerate or edit its copy to match.
@Suite struct DocExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    static func docExamples() throws -> [(key: String, lines: [String])] {
        try DocExampleCheck.docExamples(sources: root.appendingPathComponent("Sources"))
    }

    static func compiledExamples() throws -> [String: [String]] {
        try DocExampleCheck.compiledExamples(in: root.appendingPathComponent("Tests/DocExampleTests/DocExamples.swift"))
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
