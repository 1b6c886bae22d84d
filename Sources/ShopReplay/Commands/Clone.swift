import Foundation
import ShopEvents

struct Clone: ToolCommand {
    static let name = "clone"
    static let summary = "make a new replica of a hub's journal on this device"
    static let help = """
    Usage: shop-replay clone --hub COMMAND --journal J [--new-hub] [--device NAME] [--actor NAME] [--json]
           shop-replay clone --hub https://HOST/v1/households/H (--token T | --token-file FILE) --journal J [--device NAME] [--actor NAME]
           shop-replay clone --join CODE --hub https://HOST --journal J [--device NAME]
           shop-replay clone --new-household --hub https://HOST --journal J [--device NAME] [--actor NAME]

    Makes J a replica of the hub's journal and syncs it once. Refused if J (or
    J.sync) exists. COMMAND is run by /bin/sh -c and speaks the protocol on its
    standard input and output (`ssh host shop-replay hub --journal …`); a plain
    path to a journal means `shop-replay hub --journal PATH` on this machine.
    J.sync records the hub and the device; commands applied to J go to
    J.outbox until `shop-replay sync` sends them.

    A hosted hub (`shop-hub`) is an https:// (or http://) address. With
    --token (or --token-file, or $SHOP_HUB_TOKEN when neither is given), J
    syncs with the household at that address, as the actor the hub enrolled
    the token as (its hello names it): an --actor that differs is refused
    (actor_mismatch), for the hub would refuse every command of it.
    --token-file reads the token from the first line of FILE, so that it is
    in neither `ps` nor the shell's history. --join takes a code an owner
    made (`POST /v1/households/H/invites`) and enrols this device under the
    actor the code names; --hub is the hub's address (a household's address
    on it is taken as the hub's). --new-household makes a new household on
    the hub, with this device its first, and prints its id: its first
    command is `CreateHousehold` with that id, which a CreateHousehold that
    names no household takes. The token is kept in J.token (mode 0600),
    never in J.sync or in any output.

    A hub with no journal at its path is refused (exit 3, naming the path),
    and nothing is made. A new household's first device starts a new hub on
    purpose: --new-hub with a plain path, or `shop-replay hub --journal P --create`
    as COMMAND; cloning an empty hub says so.

    Exit codes: 0 cloned; 1 the hub refused a command; 2 a usage error (an
    --actor the token is not, a --token-file that cannot be read); 3 the hub
    could not be reached, or has no journal, or refused the token or code.

    Options:
      --hub COMMAND|URL  how to reach the hub
      --new-hub          the hub is a plain path where a new, empty journal is to be made
      --token T          a hosted hub's token for this device (visible in `ps`: prefer --token-file)
      --token-file FILE  the token, read from the first line of FILE (default: $SHOP_HUB_TOKEN, if set)
      --join CODE        a hosted hub's join code
      --new-household    a new household on a hosted hub
      --device NAME      this device's name (default: the host's name)
      --actor NAME       who this device says it is to the hub (default: $USER; with a token, the hub's answer)
    \(JournalOptions.help)
    """

    /// How the device enrols with a hosted hub: a token given (`--token`, `$SHOP_HUB_TOKEN`)
    /// or in a file (`--token-file`, read when the clone runs), a join code, or a new household.
    enum Enrolment { case token(String), tokenFile(String), join(String), newHousehold }

    var hub: String
    var newHub: Bool
    var enrolment: Enrolment?
    var device: String
    /// Who this device's commands are by; `nil` when the hub says (a join, or a token without --actor).
    var actor: String?
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        newHub = arguments.flag("--new-hub")
        let newHousehold = arguments.flag("--new-household")
        let token = try arguments.option("--token", "T"), tokenFile = try arguments.option("--token-file", "FILE")
        let code = try arguments.option("--join", "CODE")
        guard let hub = try arguments.option("--hub", "COMMAND"), !hub.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError(message: "--hub COMMAND is required: how to reach the hub (`ssh host shop-replay hub --journal …`, a journal's path, or https://HOST…)")
        }
        device = try arguments.option("--device", "NAME") ?? ProcessInfo.processInfo.hostName
        if HubLink.isURL(hub) {
            var given = [token.map { Enrolment.token($0) }, tokenFile.map { Enrolment.tokenFile($0) }, code.map { Enrolment.join($0) },
                         newHousehold ? .newHousehold : nil].compactMap { $0 }
            if given.isEmpty, let environment = ProcessInfo.processInfo.environment["SHOP_HUB_TOKEN"], !environment.isEmpty {
                given = [.token(environment)]
            }
            guard given.count == 1, let enrolment = given.first else {
                throw UsageError(message: "a hosted hub takes one of --token T, --token-file FILE (or $SHOP_HUB_TOKEN), --join CODE or --new-household")
            }
            guard !newHub else { throw UsageError(message: "--new-hub is for a journal's path; on a hosted hub, --new-household") }
            _ = try HubLink.url(hub, option: "--hub")
            self.hub = hub.hasSuffix("/") ? String(hub.dropLast()) : hub
            self.enrolment = enrolment
            switch enrolment {
            case .join:
                // A join's actor is the one the owner's code names; the hub tells it.
                actor = nil
            case .token, .tokenFile:
                // A token's actor is the one the hub enrolled it as; an --actor given is checked against it.
                actor = try arguments.option("--actor", "NAME")
                if let actor {
                    do { try Limits.checkActor(actor) } catch { throw UsageError(message: "--actor: \(error.code): \(error.message)") }
                }
            case .newHousehold:
                actor = try ToolJournal.actor(&arguments)
            }
            return
        }
        guard token == nil, tokenFile == nil, code == nil, !newHousehold else {
            throw UsageError(message: "--token, --token-file, --join and --new-household are for a hosted hub (--hub https://HOST…)")
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
        let journal = options.journal, actor = self.actor ?? ""
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
        let hub = try HubLink.url(self.hub, option: "--hub"), device = self.device
        let enrolled: HubEnrolment
        switch enrolment {
        case let .token(token):
            enrolled = try withToken(token, hub: hub)
        case let .tokenFile(file):
            enrolled = try withToken(try Self.token(inFile: file), hub: hub)
        case let .join(code):
            enrolled = try SyncRun.wait { try await HubEnrolment.join(hub: hub, code: code, device: device) }
        case .newHousehold:
            let actor = self.actor ?? ""
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
                out.line("the household is new: its first command is CreateHousehold, which takes \"household\": \"\(enrolled.household)\" when it names none")
            }
        }
        return SyncRun.show(report, json: options.json, cloned: true)
    }

    /// A token's enrolment: the household its address names, and the actor the hub
    /// enrolled the token as (its hello says), which an --actor given must be.
    private func withToken(_ token: String, hub: URL) throws -> HubEnrolment {
        guard let household = HubEnrolment.household(of: hub) else {
            throw UsageError(message: "with a token, --hub is the household's address: https://HOST/v1/households/H")
        }
        let transport = HTTPSyncTransport(household: hub, token: token), device = self.device
        let enrolledActor = try SyncRun.wait { try await transport.enrolledActor(device: device) }
        if let actor, actor != enrolledActor {
            throw ToolFailure(message: "actor_mismatch: --actor \(actor), but the hub enrolled this token as \(enrolledActor) and takes its commands as \(enrolledActor)'s alone: leave out --actor; nothing was made", exitCode: 2)
        }
        return HubEnrolment(household: household, actor: enrolledActor, url: hub, token: token)
    }

    /// `--token-file`'s token: the file's first line, trimmed. Neither it nor any part of it is ever printed.
    static func token(inFile file: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ToolFailure(message: "bad_token_file: --token-file \(file) cannot be read (no such file, or not readable); nothing was made", exitCode: 2)
        }
        let token = String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw ToolFailure(message: "bad_token_file: the first line of --token-file \(file) is empty; it is to hold this device's token; nothing was made", exitCode: 2)
        }
        return token
    }
}
