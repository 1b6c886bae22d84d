import ShopEvents

/// The demo's sample household, written for this project: a neighbourhood
/// supermarket walked from the entrance to the tills, about a hundred
/// everyday things, and how often this family needs each of them.
enum DemoHousehold {
    struct Product {
        var name: String
        /// Minor units; `nil` for things bought too rarely to know the price.
        var price: Int?
        /// Roughly every how many days the family runs out of it.
        var everyDays: Int
        var quantity: Int = 1
        /// What a quantity counts (`kg`); `nil` for pieces. Such things go on the list by the half: 1.5 kg.
        var unit: String? = nil
        /// The barcode on the pack, for a few things.
        var barcode: String? = nil
    }

    /// Where the family shops: the big weekly shop, the corner shop mid-week, the DIY store for the hardware list.
    static let stores = ["Supermarket", "Corner shop", "DIY store"]
    /// A unit for a few things sold by weight, and a barcode for a few packs (valid EAN-13 and EAN-8 check digits).
    static let units = ["Bananas": "kg", "Apples": "kg", "Potatoes": "kg", "Onions": "kg"]
    static let barcodes = ["Coffee beans": "4006381333931", "Oat milk": "5901234123457", "Chocolate": "96385074"]

    struct Aisle {
        var name: String
        var color: Color
        var products: [Product]
    }

    static func color(_ red: Double, _ green: Double, _ blue: Double) -> Color {
        Color(red: red, green: green, blue: blue, opacity: 1)
    }

    static let aisles: [Aisle] = [
        Aisle(name: "Produce", color: color(0.2, 0.7, 0.2), products: [
            Product(name: "Bananas", price: 129, everyDays: 5), Product(name: "Apples", price: 249, everyDays: 7),
            Product(name: "Tomatoes", price: 199, everyDays: 6), Product(name: "Cucumber", price: 69, everyDays: 8),
            Product(name: "Onions", price: 149, everyDays: 14), Product(name: "Potatoes", price: 299, everyDays: 12),
            Product(name: "Carrots", price: 99, everyDays: 10), Product(name: "Lettuce", price: 119, everyDays: 7),
            Product(name: "Lemons", price: 59, everyDays: 12, quantity: 2), Product(name: "Avocados", price: 179, everyDays: 9, quantity: 2),
            Product(name: "Garlic", price: 79, everyDays: 20), Product(name: "Bell peppers", price: 149, everyDays: 8),
            Product(name: "Spinach", price: 169, everyDays: 9), Product(name: "Grapes", price: 279, everyDays: 11),
            Product(name: "Mushrooms", price: 189, everyDays: 10), Product(name: "Strawberries", price: 299, everyDays: 13),
        ]),
        Aisle(name: "Bakery", color: color(0.8, 0.6, 0.3), products: [
            Product(name: "Sourdough bread", price: 349, everyDays: 4), Product(name: "Rolls", price: 39, everyDays: 7, quantity: 6),
            Product(name: "Croissants", price: 119, everyDays: 14, quantity: 4), Product(name: "Rye bread", price: 299, everyDays: 9),
            Product(name: "Bagels", price: 249, everyDays: 16), Product(name: "Tortillas", price: 179, everyDays: 15),
        ]),
        Aisle(name: "Deli & Cheese", color: color(0.9, 0.8, 0.2), products: [
            Product(name: "Gouda", price: 389, everyDays: 10), Product(name: "Ham", price: 279, everyDays: 8),
            Product(name: "Salami", price: 299, everyDays: 15), Product(name: "Feta", price: 229, everyDays: 14),
            Product(name: "Mozzarella", price: 129, everyDays: 9), Product(name: "Parmesan", price: 449, everyDays: 25),
            Product(name: "Hummus", price: 199, everyDays: 8),
        ]),
        Aisle(name: "Dairy", color: color(0.3, 0.5, 0.9), products: [
            Product(name: "Milk", price: 119, everyDays: 3, quantity: 2), Product(name: "Butter", price: 229, everyDays: 10),
            Product(name: "Yogurt", price: 89, everyDays: 4, quantity: 4), Product(name: "Eggs", price: 279, everyDays: 7),
            Product(name: "Cream", price: 99, everyDays: 12), Product(name: "Oat milk", price: 189, everyDays: 6),
            Product(name: "Quark", price: 79, everyDays: 11), Product(name: "Sour cream", price: 89, everyDays: 18),
        ]),
        Aisle(name: "Meat & Fish", color: color(0.8, 0.2, 0.2), products: [
            Product(name: "Chicken breast", price: 699, everyDays: 8), Product(name: "Ground beef", price: 549, everyDays: 10),
            Product(name: "Salmon", price: 899, everyDays: 14), Product(name: "Sausages", price: 399, everyDays: 12),
            Product(name: "Bacon", price: 249, everyDays: 16),
        ]),
        Aisle(name: "Pasta & Rice", color: color(0.9, 0.7, 0.4), products: [
            Product(name: "Spaghetti", price: 129, everyDays: 10), Product(name: "Penne", price: 129, everyDays: 14),
            Product(name: "Rice", price: 199, everyDays: 18), Product(name: "Lentils", price: 179, everyDays: 25),
            Product(name: "Couscous", price: 149, everyDays: 30), Product(name: "Noodles", price: 159, everyDays: 20),
        ]),
        Aisle(name: "Cans & Jars", color: color(0.6, 0.4, 0.2), products: [
            Product(name: "Tomato sauce", price: 99, everyDays: 8, quantity: 2), Product(name: "Chickpeas", price: 89, everyDays: 15),
            Product(name: "Tuna", price: 149, everyDays: 14, quantity: 2), Product(name: "Pickles", price: 179, everyDays: 30),
            Product(name: "Jam", price: 249, everyDays: 25), Product(name: "Honey", price: 449, everyDays: 40),
            Product(name: "Peanut butter", price: 299, everyDays: 28), Product(name: "Olive oil", price: 699, everyDays: 30),
            Product(name: "Salt", price: 49, everyDays: 90), Product(name: "Black pepper", price: 199, everyDays: 60),
        ]),
        Aisle(name: "Baking", color: color(0.95, 0.9, 0.8), products: [
            Product(name: "Flour", price: 89, everyDays: 21), Product(name: "Sugar", price: 99, everyDays: 35),
            Product(name: "Baking powder", price: 49, everyDays: 45), Product(name: "Yeast", price: 39, everyDays: 30),
            Product(name: "Oats", price: 149, everyDays: 12), Product(name: "Chocolate chips", price: 229, everyDays: 40),
        ]),
        Aisle(name: "Breakfast & Coffee", color: color(0.4, 0.25, 0.1), products: [
            Product(name: "Coffee beans", price: 899, everyDays: 12), Product(name: "Tea", price: 249, everyDays: 20),
            Product(name: "Muesli", price: 349, everyDays: 9), Product(name: "Cornflakes", price: 229, everyDays: 14),
            Product(name: "Cocoa", price: 299, everyDays: 30),
        ]),
        Aisle(name: "Snacks", color: color(0.9, 0.4, 0.6), products: [
            Product(name: "Crisps", price: 179, everyDays: 9), Product(name: "Chocolate", price: 129, everyDays: 6, quantity: 2),
            Product(name: "Nuts", price: 349, everyDays: 18), Product(name: "Cookies", price: 199, everyDays: 10),
            Product(name: "Popcorn", price: 149, everyDays: 21),
        ]),
        Aisle(name: "Frozen", color: color(0.6, 0.85, 0.95), products: [
            Product(name: "Frozen peas", price: 149, everyDays: 20), Product(name: "Ice cream", price: 399, everyDays: 10),
            Product(name: "Frozen pizza", price: 349, everyDays: 12, quantity: 2), Product(name: "Fish fingers", price: 299, everyDays: 16),
            Product(name: "Frozen berries", price: 349, everyDays: 14),
        ]),
        Aisle(name: "Drinks", color: color(0.2, 0.6, 0.8), products: [
            Product(name: "Sparkling water", price: 99, everyDays: 4, quantity: 6), Product(name: "Orange juice", price: 199, everyDays: 6),
            Product(name: "Beer", price: 399, everyDays: 14), Product(name: "Red wine", price: 699, everyDays: 18),
            Product(name: "Apple juice", price: 179, everyDays: 9), Product(name: "Cola", price: 149, everyDays: 12),
        ]),
        Aisle(name: "Household", color: color(0.5, 0.5, 0.7), products: [
            Product(name: "Dish soap", price: 199, everyDays: 30), Product(name: "Laundry detergent", price: 899, everyDays: 35),
            Product(name: "Paper towels", price: 349, everyDays: 20), Product(name: "Toilet paper", price: 499, everyDays: 18),
            Product(name: "Trash bags", price: 299, everyDays: 28), Product(name: "Sponges", price: 149, everyDays: 40),
        ]),
        Aisle(name: "Personal care", color: color(0.7, 0.5, 0.8), products: [
            Product(name: "Toothpaste", price: 199, everyDays: 30), Product(name: "Shampoo", price: 349, everyDays: 40),
            Product(name: "Soap", price: 99, everyDays: 25, quantity: 2), Product(name: "Deodorant", price: 299, everyDays: 45),
        ]),
    ]

    /// Things bought so rarely that they live at the Unknown Location, without a price.
    static let oddments: [Product] = [
        Product(name: "Birthday candles", price: nil, everyDays: 90), Product(name: "Batteries", price: nil, everyDays: 60),
        Product(name: "Light bulbs", price: nil, everyDays: 75),
    ]

    static let people = ["ana", "ben", "cleo"]

    /// Things for a party, on their own list once in a while.
    static let partyThings = ["Crisps", "Beer", "Cola", "Nuts", "Ice cream", "Frozen pizza", "Birthday candles"]
}
