import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Issue 50, item 3: `apply --help`'s list of fields is made from the
/// commands' fields, so that none is missing (it had no `list`, `location`,
/// `available`, `member`, `role`, `store`, …).
@Suite struct ApplyHelpFieldsTests {
    @Test func everyFieldOfEveryCommandIsDescribedOnce() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let help = try tool.run(["apply", "--help"]).stdout
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "Fields:"))
        let section = lines[(start + 1)...].prefix { $0.hasPrefix("  ") }
        let described = section.map { String($0.dropFirst(2).prefix { $0 != " " }) }
        var expected: [String] = []
        for type in CommandType.allCases {
            for field in CommandCatalog.fields(of: type) {
                let name = field.trimmingCharacters(in: CharacterSet(charactersIn: "?"))
                if !expected.contains(name) { expected.append(name) }
            }
        }
        #expect(described == expected)
        for field in expected {
            let line = try #require(section.first { $0.hasPrefix("  \(field) ") }, "\(field)")
            #expect(line == "  \(field.padding(toLength: 12, withPad: " ", startingAt: 0)) \(CommandCatalog.describe(field: field))")
            #expect(CommandCatalog.describe(field: field) != CommandCatalog.describe(field: "no such field"), "\(field) has no description")
        }
        for required in ["list", "location", "available", "member", "role", "store", "unit", "barcode"] {
            #expect(described.contains(required), "\(required)")
        }
    }
}
