import Foundation

/// An RGBA color with components in 0…1, as ShoppingList17 stores them.
///
/// ```swift
/// let dairy = Color(red: 0.2, green: 0.4, blue: 1, opacity: 1)
/// ```
public struct Color: Hashable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var opacity: Double

    public init(red: Double, green: Double, blue: Double, opacity: Double) {
        self.red = red; self.green = green; self.blue = blue; self.opacity = opacity
    }

    /// The grey of the Unknown Location and of locations created without a color.
    public static let grey = Color(red: 0.5, green: 0.5, blue: 0.5, opacity: 1)

    var isValid: Bool {
        [red, green, blue, opacity].allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 }
    }
}

// Codable here, beside their declarations: the keys are the journal's
// (`red`, `green`, `blue`, `opacity`; `category`, `notes`, `unitPrice`, `photo`, `quantity`).
extension Color: Codable {}
