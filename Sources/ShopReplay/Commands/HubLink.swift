import Foundation
import ShopEvents

/// How the tool reaches a replica's hub: a command that speaks the protocol
/// on its standard input and output, or a hosted hub's household URL
/// (`https://HOST/v1/households/H`) with the device's token in `J.token`.
enum HubLink {
    static func isURL(_ hub: String) -> Bool { hub.hasPrefix("https://") || hub.hasPrefix("http://") }

    /// A hosted hub's address, checked: `https://HOST[:PORT][/PATH]`.
    static func url(_ text: String, option: String) throws(UsageError) -> URL {
        guard isURL(text), let url = URL(string: text), url.host != nil else {
            throw UsageError(message: "\(option) \(text) is not a hosted hub's address (https://HOST…)")
        }
        return url
    }

    /// One sync of `journal` with the hub `settings` names.
    static func sync(journal: String, settings: SyncSettings, actor: String) throws -> SyncReport {
        let client = SyncClient(journal: journal, options: Journal.Options(actor: actor))
        if isURL(settings.hub) {
            let hub = try url(settings.hub, option: "the hub in \(journal).sync,")
            let transport = HTTPSyncTransport(household: hub, token: try HubToken.load(journal: journal))
            return try SyncRun.wait { try await client.sync(over: transport) }
        }
        let transport = try ProcessTransport(command: HubCommand.shell(settings.hub))
        defer { transport.close() }
        return try SyncRun.wait { try await client.sync(over: transport) }
    }
}
