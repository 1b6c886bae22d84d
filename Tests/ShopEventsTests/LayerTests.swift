import Foundation
import Testing

/// Layers point one way: domain ← codec and storage ← journal ← sync ←
/// store and archive. A file of a layer names no type that a higher layer
/// declares (comments aside), so the rules can be read without the
/// machinery below them, and the machinery without what is built on it.
@Suite struct LayerTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/ShopEvents").standardized

    /// Each folder of `Sources/ShopEvents` and its rank: a file may name what ranks at or below its own.
    static let ranks: [String: Int] = [
        "Domain": 1, "Codec": 2, "Storage": 2, "Support": 2, "Journal": 3, "Sync": 4, "Store": 5, "Archive": 5,
    ]

    /// Names a lower layer still uses, and why; each is work left, not a rule.
    static let knownExceptions: Set<String> = []

    static func files(_ folder: String) throws -> [(name: String, text: String)] {
        let directory = sources.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The types, protocols and type aliases a file declares at its top level.
    static func declared(in text: String) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(separator: "\n") where !line.hasPrefix("//") {
            let words = line.split(whereSeparator: { " (<:{".contains($0) }).map(String.init)
            for (index, word) in words.enumerated().dropLast()
            where ["struct", "enum", "class", "actor", "protocol", "typealias"].contains(word)
                && !line.hasPrefix(" ") && !line.hasPrefix("\t") {
                names.insert(words[index + 1])
            }
        }
        return names
    }

    /// The code of a file: comments and the text of string literals left out.
    static func code(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var out = "", inString = false, escaped = false
            var previous: Character = " "
            for character in line {
                if inString {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false; out.append("\"") }
                } else if character == "/", previous == "/" {
                    out.removeLast()
                    break
                } else {
                    if character == "\"" { inString = true }
                    out.append(character)
                }
                previous = character
            }
            return out
        }.joined(separator: "\n")
    }

    @Test func noLayerNamesAHigherOne() throws {
        var declaredBy: [(folder: String, rank: Int, names: Set<String>)] = []
        for (folder, rank) in Self.ranks {
            let names = try Self.files(folder).reduce(into: Set<String>()) { $0.formUnion(Self.declared(in: $1.text)) }
            #expect(!names.isEmpty, "\(folder) declares nothing: is the folder there?")
            declaredBy.append((folder, rank, names))
        }
        var found: [String] = []
        var exceptionsSeen: Set<String> = []
        for (folder, rank) in Self.ranks {
            for file in try Self.files(folder) {
                let code = Self.code(file.text)
                for higher in declaredBy where higher.rank > rank {
                    for name in higher.names where code.range(of: "\\b\(name)\\b", options: .regularExpression) != nil {
                        let pair = "\(folder) → \(name)"
                        if Self.knownExceptions.contains(pair) { exceptionsSeen.insert(pair); continue }
                        found.append("\(folder)/\(file.name) names \(name), which \(higher.folder) declares")
                    }
                }
            }
        }
        #expect(found == [])
        #expect(exceptionsSeen == Self.knownExceptions, "an exception no longer needed is to be struck from the list")
    }

    @Test func theDomainHoldsRulesNotMachinery() throws {
        for file in try Self.files("Domain") {
            let code = Self.code(file.text)
            for machinery in ["Unsafe", "CShopSHA", "BinaryReader", "BinaryWriter", "SHA256", "pthread", "@exclusivity", "Thread", "FileManager", "open(", "fsync"] {
                #expect(!code.contains(machinery), "Domain/\(file.name) names \(machinery)")
            }
        }
    }
}
