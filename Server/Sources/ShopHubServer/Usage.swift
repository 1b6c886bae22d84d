import Foundation

// The usage texts: all of them for `shop-hub --help`, a command's own for `shop-hub COMMAND --help`.

let serveUsage = """
Usage: shop-hub serve [--host 127.0.0.1] [--port 8080] [--data DIR | --postgres URL] [--tls-cert FILE --tls-key FILE]
                      [--households-per-hour N] [--requests-per-second N] [--joins-per-minute N] [--max-wait S]
                      [--head-timeout 10] [--body-timeout 30] [--idle-timeout 75] [--connections-per-address 100]
                      [--trusted-proxy CIDR ...] [--app DIR | --no-app]

serve      answers the routes of docs/HUB.md until SIGTERM or SIGINT (it
           finishes the requests it holds, takes no more, exits 0). --data is
           the folder of the embedded storage (default ./shop-hub-data, made
           if missing); --port 0 takes any free port. It prints
           `listening on http://HOST:PORT` on standard output when it is ready,
           and JSON log lines on standard error: its start, one a request, its
           stop. Limits, per client address: 60 new households an hour, 20
           join attempts a minute; per token: 20 requests a second, in bursts
           of a second's worth and at least 10. A pull waits at most
           --max-wait seconds (default 60) however long it asks for (a proxy
           with a shorter read timeout wants less). A connection is closed
           when a request's line and headers take over --head-timeout seconds
           to arrive (from its opening, or from a later request's first
           byte), when a body sends nothing for --body-timeout seconds while
           the hub reads it, or after --idle-timeout seconds without a request
           once its last answer is written (a long poll being answered is not
           idle); one address may hold --connections-per-address connections
           at once, the next is answered 503 too_many_connections. Behind a
           proxy, --trusted-proxy 10.0.0.0/8 (or ::1, any number of times):
           a request from that network is counted under the client its
           X-Forwarded-For (else Forwarded) names, the right-most address
           there that is not a trusted proxy's; from anyone else those headers
           are ignored. A trusted proxy's connections are not capped. A
           database that cannot be used stops it within 10 seconds, exit 3,
           with the database's reason.
           The household's web app (docs/APP.md) is at / : open
           http://HOST:PORT in a browser. It is the copy built into the hub;
           --app DIR serves the one in DIR instead (a copy of
           Server/Sources/ShopHub/WebApp, read at start), --no-app none.
"""

let householdUsage = """
Usage: shop-hub household list [--data DIR] [--json]
       shop-hub household show H [--data DIR] [--json]
       shop-hub household export H [--data DIR] [--out FILE]
       shop-hub household verify H [--data DIR]
       shop-hub household import H FILE [--data DIR] [--device NAME --actor A]
       (each household command takes --postgres URL, or $DATABASE_URL, instead of --data)

household  the operator's commands: list the households, show one (devices,
           head), export its journal byte for byte, verify it (the chain and
           every rule, as `shop-replay verify`), import a journal file into a
           household (verified first; from a file hub into PostgreSQL and back),
           enrolling a first device if --device and --actor are given.
"""

let commonUsage = """
--postgres URL  postgres://USER:PASSWORD@HOST:PORT/DATABASE: the PostgreSQL
           storage, its schema made or migrated at start; any number of
           shop-hub processes may serve one database. --postgres-layout
           partitioned hash-partitions every table by household.
--help     this text, for any command (`shop-hub serve --help`).
LOG_LEVEL  the least level logged: trace, debug, info (the default), notice,
           warning, error or critical.

Exit codes: 0 success; 1 verification failed; 2 usage error; 3 the storage could not be used.
"""

let fullUsage = serveUsage + "\n" + householdUsage.replacingOccurrences(of: "Usage: ", with: "       ") + "\n" + commonUsage

/// The usage text a command's `--help` prints.
func usage(of command: String) -> String {
    switch command {
    case "serve": return serveUsage + "\n" + commonUsage
    case "household": return householdUsage + "\n" + commonUsage
    default: return fullUsage
    }
}
