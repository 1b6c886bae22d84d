/// The words of a `hub-bench` mode: each option taken out as it is read, so that what is left over is
/// what the mode did not understand.
struct BenchArguments {
    private(set) var words: [String]

    init(_ words: [String]) { self.words = words }

    /// `--name VALUE`'s value, taken out; nil without it.
    mutating func value(_ name: String) -> String? {
        guard let i = words.firstIndex(of: name), i + 1 < words.count else { return nil }
        defer { words.removeSubrange(i...(i + 1)) }
        return words[i + 1]
    }

    /// Whether `--name` was given, taken out.
    mutating func flag(_ name: String) -> Bool {
        guard let i = words.firstIndex(of: name) else { return false }
        words.remove(at: i)
        return true
    }
}
