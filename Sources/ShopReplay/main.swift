import Foundation
import ShopEvents

// A first look at the product until the full tool lands: `shop-replay demo`
// writes a short household history and prints it back.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "demo" else {
    FileHandle.standardError.write(Data("usage: shop-replay demo [--journal PATH]\n".utf8))
    exit(2)
}
let path = arguments.count >= 3 && arguments[1] == "--journal" ? arguments[2] : "shop-demo.ndjson"
try? FileManager.default.removeItem(atPath: path)
do {
    let journal = try Journal.open(path: path, options: .init(ids: .sequential(prefix: 0xD0), actor: "ana"))
    let dairy = LocationID(), bakery = LocationID(), milk = ItemID(), bread = ItemID(), weekly = ListID()
    try journal.execute(.createHousehold(household: HouseholdID(), name: "The Demo Family", currency: "EUR", timeZone: "Europe/Berlin"))
    try journal.execute(.createLocation(location: bakery, name: "Bakery", color: nil))
    try journal.execute(.createLocation(location: dairy, name: "Dairy", color: nil))
    try journal.execute(.createItem(item: milk, name: "Milk", location: dairy, details: ItemDetails(unitPrice: 119)))
    try journal.execute(.createItem(item: bread, name: "Bread", location: bakery, details: ItemDetails(unitPrice: 249)))
    try journal.execute(.createList(list: weekly, name: "Weekly", priority: .high))
    try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 2))
    try journal.execute(.addItemToList(list: weekly, item: bread, quantity: nil))
    try journal.execute(CommandEnvelope(.purchaseItem(purchase: PurchaseID(), item: milk, list: weekly, quantity: nil,
                                                      unitPrice: nil, location: nil, purchasedAt: nil), actor: "ben"))
    try journal.execute(.deleteLocation(location: bakery))
    let head = journal.head
    journal.close()
    for recorded in try JournalReader.readAll(path: path) {
        print(String(format: "%3d  %@  %-5@ %@", recorded.seq, recorded.at.description, recorded.actor, recorded.event.typeName))
    }
    print("\nwrote \(path); audit head \(head)")
} catch let error as any ShopError {
    FileHandle.standardError.write(Data("shop-replay: \(error.code): \(error.message)\n".utf8))
    exit(3)
}
