/// Why the hub could not start on its storage (a database that cannot be used, a folder that cannot be
/// written): `shop-hub serve` prints the message as it is and exits 3.
struct StartFailure: Error {
    let message: String
}
