/// The words of a command line, taken out as they are read: what is left over is an unknown argument.
struct Options {
    var words: [String]
    mutating func flag(_ name: String) -> Bool {
        guard let i = words.firstIndex(of: name) else { return false }
        words.remove(at: i)
        return true
    }
    mutating func value(_ name: String) throws -> String? {
        guard let i = words.firstIndex(of: name) else { return nil }
        guard i + 1 < words.count else { throw UsageFailure(message: "\(name) needs a value") }
        let value = words[i + 1]
        words.removeSubrange(i...(i + 1))
        return value
    }
    mutating func int(_ name: String) throws -> Int? {
        guard let text = try value(name) else { return nil }
        guard let number = Int(text), number >= 0 else { throw UsageFailure(message: "\(name) takes a whole number ≥ 0, not \(text)") }
        return number
    }
    func finish() throws {
        if let extra = words.first { throw UsageFailure(message: "unknown argument \(extra)") }
    }
}
