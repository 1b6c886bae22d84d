import Foundation

/// Names and typed text as the suggestions match them (docs/VIEWS.md, "Suggestions"):
/// lowered, decomposed, without diacritics, as words.
///
/// A *word* is a run of letters and digits (of any script); everything else
/// (spaces, punctuation, symbols) only separates words, and a run of
/// separators counts as one. The folded form is the words joined by one
/// space, as UTF-8 bytes: `Crème-fraîche  (full fat)` folds to
/// `creme fraiche full fat`. Diacritics are the combining marks of the
/// canonical decomposition, so `Crème` typed precomposed and `Cre\u{0300}me`
/// typed decomposed fold alike; letters that do not decompose (`ø`, `ł`,
/// `ß`) stay as they are.
enum SuggestionText {
    /// `name` folded, with a space after the last word: the end of the name is
    /// a word break, so typed text that ends with a separator (`creme `) still
    /// finds a name that ends with that word.
    static func foldedName(_ name: String) -> [UInt8] {
        var bytes = fold(name).bytes
        bytes.append(space)
        return bytes
    }

    /// What was typed, folded: its words joined by spaces, and a space after
    /// the last when the text ends with a separator (the word is complete).
    /// Empty when it holds no letter or digit: then every item matches.
    static func foldedPrefix(_ text: String) -> [UInt8] {
        var (bytes, endsWithBreak) = fold(text)
        if endsWithBreak, !bytes.isEmpty { bytes.append(space) }
        return bytes
    }

    /// Where each word of a folded name starts: 0 and every place after a space.
    static func wordStarts(_ folded: [UInt8]) -> [Int] {
        guard !folded.isEmpty, folded != [space] else { return [] }
        var starts = [0]
        for index in folded.indices.dropLast() where folded[index] == space { starts.append(index + 1) }
        return starts
    }

    static let space = UInt8(ascii: " ")

    private static func fold(_ text: String) -> (bytes: [UInt8], endsWithBreak: Bool) {
        var bytes: [UInt8] = []
        var breakPending = false
        for scalar in text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                continue   // the diacritics a decomposition splits off
            case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .decimalNumber, .letterNumber, .otherNumber:
                if breakPending, !bytes.isEmpty { bytes.append(space) }
                breakPending = false
                bytes.append(contentsOf: String(scalar).utf8)
            case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .format, .surrogate, .privateUse, .unassigned,
                 .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
                 .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
                breakPending = true
            @unknown default:
                breakPending = true
            }
        }
        return (bytes, breakPending)
    }
}
