import ShopEvents

/// Purchases, quantity and spend added up.
public struct Tally: Hashable, Sendable {
    public var purchases = 0
    public var quantity = Quantity.zero
    public var spend = 0

    public init(purchases: Int = 0, quantity: Quantity = .zero, spend: Int = 0) {
        self.purchases = purchases; self.quantity = quantity; self.spend = spend
    }

    mutating func add(quantity: Quantity, spend: Int, sign: Int) {
        purchases += sign
        self.quantity = sign > 0 ? self.quantity + quantity : self.quantity - quantity
        self.spend += sign * spend
    }
}
