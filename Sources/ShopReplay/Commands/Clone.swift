import Foundation
import ShopEvents

struct Clone: ToolCommand {
    static let name = "clone"
    static let summary = "make a new replica of a hub's journal on this device"
    static let help = """
    Usage: shop-replay clone --hub COMMAND --journal J [--new-hub] [--device NAME] [--actor NAME] [--json]

    Makes J a replica of the hub's journal and syncs it once. Refused if J (or
    J.sync) exists. COMMAND is run by /bin/sh -c and speaks the protocol on its
    standard input and output (`ssh host shop-replay hub --journal …`); a plain
    path to a journal means `shop-replay hub --journal PATH` on this machine.
    J.sync records the hub and the device; commands applied to J go to
    J.outbox until `shop-replay sync` sends them.

    A hub with no journal at its path is refused (exit 3, naming the path),
    and nothing is made. A new household's first device starts a new hub on
    purpose: --new-hub with a plain path, or `shop-replay hub --journal P --create`
    as COMMAND; cloning an empty hub says so.

    Exit codes: 0 cloned; 1 the hub refused a command; 3 the hub could not be
    reached, or has no journal.

    Options:
      --hub COMMAND    how to reach the hub
      --new-hub        the hub is a plain path where a new, empty journal is to be made
      --device NAME    this device's name (default: the host's name)
      --actor NAME     who this device says it is to the hub (default: $USER)
    \(JournalOptions.help)
    """

    var hub: String
    var newHub: Bool
    var device: String
    var actor: String
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        newHub = arguments.flag("--new-hub")
        guard let hub = try arguments.option("--hub", "COMMAND"), !hub.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError(message: "--hub COMMAND is required: how to reach the hub (`ssh host shop-replay hub --journal …`, or a journal's path)")
        }
        self.hub = HubCommand.storable(hub)
        if newHub, !HubCommand.isJournalPath(self.hub) {
            throw UsageError(message: "--new-hub takes a plain path to a journal as --hub; with a command, give the hub its own --create")
        }
        device = try arguments.option("--device", "NAME") ?? ProcessInfo.processInfo.hostName
        actor = try ToolJournal.actor(&arguments)
    }

    func run() throws -> Int32 {
        let settings = SyncSettings(hub: hub, device: device)
        let transport = try ProcessTransport(command: HubCommand.shell(hub) + (newHub ? " --create" : ""))
        defer { transport.close() }
        let journal = options.journal, actor = self.actor
        let report = try SyncRun.wait {
            try await SyncClient.clone(journal: journal, settings: settings, options: Journal.Options(actor: actor), over: transport)
        }
        return SyncRun.show(report, json: options.json, cloned: true)
    }
}
