import Foundation

/// Every ```swift example of the doc comments under a `Sources` folder, and
/// their compiled copies in a test file (each in a function headed by
/// `// Sources/<file> #<n>`), so that a test can hold the two to each other.
public enum DocExampleCheck {
    /// `Sources/<file> #n` → the example's lines, without `/// `.
    public static func docExamples(sources: URL) throws -> [(key: String, lines: [String])] {
        var found: [(String, [String])] = []
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

    /// `Sources/<file> #n` → the body of its function in `file`, dedented.
    public static func compiledExamples(in file: URL) throws -> [String: [String]] {
        let text = try String(contentsOf: file, encoding: .utf8)
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
}
