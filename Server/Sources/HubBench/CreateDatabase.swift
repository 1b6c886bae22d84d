import Foundation

/// A new database in the PostgreSQL cluster at `cluster` (`psql … CREATE DATABASE`): its URL.
func createDatabase(in cluster: String) throws -> String {
    let name = "hub_bench_\(UUID().uuidString.prefix(8).lowercased())"
    let psql = Process()
    psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
    psql.arguments = [cluster, "-q", "-c", "CREATE DATABASE \(name)"]
    try psql.run()
    psql.waitUntilExit()
    guard psql.terminationStatus == 0 else { throw BenchFailure(description: "psql could not create a database in \(cluster)") }
    guard var parts = URLComponents(string: cluster) else { throw BenchFailure(description: "bad URL") }
    parts.path = "/" + name
    return parts.string ?? cluster
}
