/// How many of an item: an exact decimal with at most three fraction digits
/// (docs/COMMANDS.md, "Values"), kept as a whole number of thousandths so that no
/// `Double` is ever on the way from the journal to a total.
///
/// Whole quantities read and print as before (`2`); others with as few
/// fraction digits as they need (`1.5`, `0.25`, `0.125`). A cost is the
/// quantity times a unit price, rounded half to even to the minor unit.
///
/// ```swift
/// let kilos = Quantity(thousandths: 1_500)            // 1.5
/// print(kilos, kilos.cost(unitPrice: 199))           // "1.5 298" (298.5 rounds to the even 298)
/// let two: Quantity = 2
/// print(two + kilos)                                 // "3.5"
/// ```
public struct Quantity: Hashable, Sendable, Comparable, AdditiveArithmetic, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The quantity times 1,000.
    public var thousandths: Int

    @inlinable public init(thousandths: Int) { self.thousandths = thousandths }
    /// A whole quantity.
    @inlinable public init(_ whole: Int) { thousandths = whole.multipliedReportingOverflow(by: 1000).overflow ? (whole < 0 ? .min : .max) : whole * 1000 }
    public init(integerLiteral value: Int) { self.init(value) }

    public static let zero = Quantity(thousandths: 0)
    /// What a quantity may be: 0.001 … 9999.
    public static let allowed = Quantity(thousandths: 1)...Quantity(9999)

    /// The whole number it is, if it is one.
    @inlinable public var whole: Int? { thousandths % 1000 == 0 ? thousandths / 1000 : nil }

    /// `quantity × unitPrice` in minor units, rounded half to even.
    @inlinable public func cost(unitPrice: Int) -> Int {
        // Allowed values never overflow (9,999,000 × 100,000,000 < 2⁶³); others saturate.
        let (product, overflow) = thousandths.multipliedReportingOverflow(by: unitPrice)
        guard !overflow else { return (thousandths < 0) == (unitPrice < 0) ? .max : .min }
        return Self.divideHalfEven(product, by: 1000)
    }

    /// `n ÷ d` rounded half to even (`d` > 0).
    @inlinable static func divideHalfEven(_ n: Int, by d: Int) -> Int {
        var q = n / d, r = n % d
        if r < 0 { q -= 1; r += d }           // floor division: 0 ≤ r < d
        if 2 * r > d || (2 * r == d && q % 2 != 0) { q += 1 }
        return q
    }

    public var description: String {
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = thousandths.magnitude
        let whole = magnitude / 1000, fraction = magnitude % 1000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = String(fraction + 1000).dropFirst()     // three digits, leading zeros kept
        while digits.last == "0" { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }

    /// Reads `2`, `1.5`, `0.125`: a plain decimal with at most three
    /// fraction digits, no sign, no exponent. `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        var whole = 0, fraction = 0, fractionDigits = 0, digits = 0, inFraction = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if inFraction {
                    guard fractionDigits < 3 else { return nil }
                    fraction = fraction * 10 + Int(byte - UInt8(ascii: "0"))
                    fractionDigits += 1
                } else {
                    guard digits < 15 else { return nil }
                    whole = whole * 10 + Int(byte - UInt8(ascii: "0"))
                    digits += 1
                }
            case UInt8(ascii: "."):
                guard !inFraction, digits > 0 else { return nil }
                inFraction = true
            default:
                return nil
            }
        }
        guard digits > 0, !inFraction || fractionDigits > 0 else { return nil }
        while fractionDigits < 3 { fraction *= 10; fractionDigits += 1 }
        thousandths = whole * 1000 + fraction
    }

    @inlinable public static func < (a: Quantity, b: Quantity) -> Bool { a.thousandths < b.thousandths }
    @inlinable public static func + (a: Quantity, b: Quantity) -> Quantity { Quantity(thousandths: a.thousandths + b.thousandths) }
    @inlinable public static func - (a: Quantity, b: Quantity) -> Quantity { Quantity(thousandths: a.thousandths - b.thousandths) }
}
