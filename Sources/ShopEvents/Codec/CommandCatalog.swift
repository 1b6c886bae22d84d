import Foundation

/// What people and tools need to write commands by hand: every command type
/// with its data fields, references by name, and the ids a command created.
///
/// ```swift
/// print(CommandCatalog.fields(of: .addItemToList))        // ["list", "item", "quantity?"]
/// let line = #"{"type":"AddItemToList","data":{"list":"weekly","item":"Milk"}}"#
/// let resolved = try CommandCatalog.resolvingNames(in: Array(line.utf8), state: journal.state)
/// let request = try CommandCodec.decode(resolved, ids: .random)   // ids, as the journal records them
/// ```
public enum CommandCatalog {
    /// The data fields of a command type, in the order the codec writes them;
    /// `?` marks an optional one. An id of a thing being created is optional:
    /// a new one is made.
    public static func fields(of type: CommandType) -> [String] {
        type.declaration.fields.map(\.listed)
    }

    /// What a field holds, for help texts (a trailing `?` is ignored).
    public static func describe(field: String) -> String {
        CommandDeclaration.describe(key: field.trimmingCharacters(in: CharacterSet(charactersIn: "?")))
    }

    /// A data field that names an existing thing (not the id of one being created).
    static func isReference(_ field: String, in type: CommandType) -> Bool {
        switch field {
        case "item": type != .createItem
        case "list": type != .createList
        case "location": type != .createLocation
        case "store": type != .createStore
        case "order": type == .reorderLocations || type == .reorderList || type == .reorderStoreLocations
        default: false
        }
    }
}
