/// Barcodes of items (docs/COMMANDS.md, "Values"): the digits of an EAN-8, UPC-A or
/// EAN-13, whose last digit is the check digit of the others (weights 3 and
/// 1 from the right). A UPC-A and the EAN-13 that is it with a leading `0`
/// name the same product, so both have one ``key``.
///
/// ```swift
/// print(Barcode.isValid("4006381333931"))   // true (EAN-13)
/// print(Barcode.isValid("4006381333932"))   // false: the check digit is 1
/// print(Barcode.key("036000291452") == Barcode.key("0036000291452"))   // true
/// ```
public enum Barcode {
    /// Whether `text` is 8, 12 or 13 ASCII digits with a valid check digit.
    public static func isValid(_ text: String) -> Bool {
        let digits = Array(text.utf8)
        guard [8, 12, 13].contains(digits.count), let check = digits.last,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        var sum = 0
        for (n, digit) in digits.dropLast().reversed().enumerated() {
            sum += Int(digit - UInt8(ascii: "0")) * (n.isMultiple(of: 2) ? 3 : 1)
        }
        return (10 - sum % 10) % 10 == Int(check - UInt8(ascii: "0"))
    }

    /// What two barcodes of one product share: a UPC-A as its EAN-13 (a leading `0`).
    public static func key(_ barcode: String) -> String { barcode.utf8.count == 12 ? "0" + barcode : barcode }
}
