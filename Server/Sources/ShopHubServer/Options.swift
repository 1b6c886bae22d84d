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
    /// Every value of an option that may be given more than once, in order.
    mutating func values(_ name: String) throws -> [String] {
        var all: [String] = []
        while let one = try value(name) { all.append(one) }
        return all
    }
    /// A whole number ≥ 1 (a count, or seconds that cannot be none).
    mutating func positive(_ name: String) throws -> Int? {
        guard let number = try int(name) else { return nil }
        guard number >= 1 else { throw UsageFailure(message: "\(name) takes a whole number ≥ 1, not 0") }
        return number
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
