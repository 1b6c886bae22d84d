import Foundation
import ShopEvents

struct Hub: ToolCommand {
    static let name = "hub"
    static let summary = "serve a journal to devices: the sync protocol on standard input and output"
    static let help = """
    Usage: shop-replay hub --journal PATH [--as ACTOR] [--create]

    Speaks the sync protocol (one JSON request a line, one answer each) on
    standard input and output until the end of input, like git-upload-pack:
    `ssh host shop-replay hub --journal /srv/home.ndjson --as ben` is a
    remote hub, and an ssh key's forced command is its authentication. Pulls
    read without the lock; a push takes the writer's lock, decides its commands
    in order and makes the accepted ones durable with one fsync. Many hubs may
    serve one journal at once. A malformed request, one over 1 MiB or a push
    of more than 1,000 commands is answered bad_request; nothing is written.

    A hub serves a journal that exists: where there is none at PATH (a typo,
    a journal moved away) every request is answered no_journal, naming the
    path, and the hub exits 3 at the end of input. A new hub is asked for on
    purpose, with --create.

    Exit codes: 0 served; 3 there was no journal at PATH, or it could not be read or written.

    Options:
      --create         start a new hub: make an empty journal at PATH if there is none
      --as ACTOR       commands naming another actor are refused (forbidden);
                       one naming none is recorded as ACTOR
      --journal PATH   the hub's journal (default: $SHOP_JOURNAL, else ./shop.ndjson)
    """

    var journal: String
    var actor: String?
    var create: Bool

    init(_ arguments: inout Arguments) throws(UsageError) {
        journal = try JournalOptions(&arguments).journal
        create = arguments.flag("--create")
        actor = try arguments.option("--as", "ACTOR")
        if let actor {
            do { try Limits.checkActor(actor) } catch { throw UsageError(message: "--as: \(error.code): \(error.message)") }
        }
    }

    func run() throws -> Int32 {
        // A pushed command carries its device's actor; the hub's own is used by no command it records.
        let options = Journal.Options(actor: actor ?? ToolJournal.userName ?? "hub", lockTimeout: 30)
        if create, access(journal, F_OK) != 0 {
            try SharedJournal.open(path: journal, options: options).close()
        }
        let hub = SyncHub(journal: journal, as: actor, options: options)
        let missing = !hub.hasJournal
        if missing { Tool.fail("hub: there is no journal at \(hub.path); every request is answered no_journal (a new hub: --create)") }
        try hub.serve(input: 0, output: 1)
        return missing ? 3 : 0
    }
}
