/// A command line `shop-hub` cannot take: said with the usage text, exit 2.
struct UsageFailure: Error { let message: String }
