import Foundation
import ShopEvents

struct Clone: ToolCommand {
    static let name = "clone"
    static let summary = "make a new replica of a hub's journal on this device"
    static let help = """
    Usage: shop-replay clone --hub COMMAND --journal J [--new-hub] [--device NAME] [--actor NAME] [--json]
           shop-replay clone --hub https://HOST/v1/households/H --token T --journal J [--device NAME] [--actor NAME]
           shop-replay clone --join CODE --hub https://HOST --journal J [--device NAME]
           shop-replay clone --new-household --hub https://HOST --journal J [--device NAME] [--actor NAME]

    Makes J a replica of the hub's journal and syncs it once. Refused if J (or
    J.sync) exists. COMMAND is run by /bin/sh -c and speaks the protocol on its
    standard input and output (`ssh host shop-replay hub --journal …`); a plain
    path to a journal means `shop-replay hub --journal PATH` on this machine.
    J.sync records the hub and the device; commands applied to J go to
    J.outbox until `shop-replay sync` sends them.

    A hosted hub (`shop-hub`) is an https:// (or http://) address. With
    --token, J syncs with the household at that address. --join takes a code
    an owner made (`POST /v1/households/H/invites`) and enrols this device
    under the actor the code names. --new-household makes a new household on
    the hub, with this device its first, and prints its id: its first
    command is `CreateHousehold` with that id. The token is kept in J.token
    (mode 0600), never in J.sync or in any output.

    A hub with no journal at its path is refused (exit 3, naming the path),
    and nothing is made. A new household's first device starts a new hub on
    purpose: --new-hub with a plain path, or `shop-replay hub --journal P --create`
    as COMMAND; cloning an empty hub says so.

    Exit codes: 0 cloned; 1 the hub refused a command; 3 the hub could not be
    reached, or has no journal, or refused the token or code.

    Options:
      --hub COMMAND|URL  how to reach the hub
      --new-hub          the hub is a plain path where a new, empty journal is to be made
      --token T          a hosted hub's token for this device
      --join CODE        a hosted hub's join code
      --new-household    a new household on a hosted hub
      --device NAME      this device's name (default: the host's name)
      --actor NAME       who this device says it is to the hub (default: $USER)
    \(JournalOptions.help)
    """

    /// How the device enrols with a hosted hub.
    enum Enrolment { case token(String), join(String), newHousehold }

    var hub: String
    var newHub: Bool
    var enrolment: Enrolment?
    var device: String
    var actor: String
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        newHub = arguments.flag("--new-hub")
        let newHousehold = arguments.flag("--new-household")
        let token = try arguments.option("--token", "T"), code = try arguments.option("--join", "CODE")
        guard let hub = try arguments.option("--hub", "COMMAND"), !hub.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError(message: "--hub COMMAND is required: how to reach the hub (`ssh host shop-replay hub --journal …`, a journal's path, or https://HOST…)")
        }
        device = try arguments.option("--device", "NAME") ?? ProcessInfo.processInfo.hostName
        if HubLink.isURL(hub) {
            let given = [token.map { Enrolment.token($0) }, code.map { Enrolment.join($0) }, newHousehold ? .newHousehold : nil].compactMap { $0 }
            guard given.count == 1, let enrolment = given.first else {
                throw UsageError(message: "a hosted hub takes one of --token T, --join CODE or --new-household")
            }
            guard !newHub else { throw UsageError(message: "--new-hub is for a journal's path; on a hosted hub, --new-household") }
            _ = try HubLink.url(hub, option: "--hub")
            self.hub = hub.hasSuffix("/") ? String(hub.dropLast()) : hub
            self.enrolment = enrolment
            // A join's actor is the one the owner's code names; the hub tells it.
            actor = code != nil ? "" : try ToolJournal.actor(&arguments)
            return
        }
        guard token == nil, code == nil, !newHousehold else {
            throw UsageError(message: "--token, --join and --new-household are for a hosted hub (--hub https://HOST…)")
        }
        self.hub = HubCommand.storable(hub)
        if newHub, !HubCommand.isJournalPath(self.hub) {
            throw UsageError(message: "--new-hub takes a plain path to a journal as --hub; with a command, give the hub its own --create")
        }
        actor = try ToolJournal.actor(&arguments)
    }

    func run() throws -> Int32 {
        if let enrolment { return try runHosted(enrolment) }
        let settings = SyncSettings(hub: hub, device: device)
        let transport = try ProcessTransport(command: HubCommand.shell(hub) + (newHub ? " --create" : ""))
        defer { transport.close() }
        let journal = options.journal, actor = self.actor
        let report = try SyncRun.wait {
            try await SyncClient.clone(journal: journal, settings: settings, options: Journal.Options(actor: actor), over: transport)
        }
        return SyncRun.show(report, json: options.json, cloned: true)
    }

    /// A replica of a hosted hub's household: enrol if asked, keep the token, clone.
    private func runHosted(_ enrolment: Enrolment) throws -> Int32 {
        let journal = JournalPath.absolute(options.journal)
        for file in [journal, journal + ".sync", journal + ".token"] where FileManager.default.fileExists(atPath: file) {
            throw ToolFailure(message: "\(file) already exists; nothing was changed — clone to another path", exitCode: 3)
        }
        let hub = try HubLink.url(self.hub, option: "--hub"), device = self.device, actor = self.actor
        let enrolled: HubEnrolment
        switch enrolment {
        case let .token(token):
            guard let household = HouseholdID(hub.lastPathComponent), hub.deletingLastPathComponent().lastPathComponent == "households" else {
                throw UsageError(message: "with --token, --hub is the household's address: https://HOST/v1/households/H")
            }
            enrolled = HubEnrolment(household: household, actor: actor, url: hub, token: token)
        case let .join(code):
            enrolled = try SyncRun.wait { try await HubEnrolment.join(hub: hub, code: code, device: device) }
        case .newHousehold:
            enrolled = try SyncRun.wait { try await HubEnrolment.createHousehold(hub: hub, device: device, actor: actor) }
        }
        try HubToken.save(enrolled.token, journal: journal)
        let settings = SyncSettings(hub: enrolled.url.absoluteString, device: device, actor: enrolled.actor)
        let transport = HTTPSyncTransport(household: enrolled.url, token: enrolled.token)
        let report = try SyncRun.wait {
            try await SyncClient.clone(journal: journal, settings: settings, options: Journal.Options(actor: enrolled.actor), over: transport)
        }
        let out = Output(json: false)
        if !options.json {
            out.line("household \(enrolled.household) on \(hub.host ?? ""), this device \(device) as \(enrolled.actor) (token in \(journal).token)")
            if case .newHousehold = enrolment {
                out.line("the household is new: its first command is CreateHousehold with \"household\": \"\(enrolled.household)\"")
            }
        }
        return SyncRun.show(report, json: options.json, cloned: true)
    }
}
