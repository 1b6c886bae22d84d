/// Why a measure could not be made.
struct BenchFailure: Error, CustomStringConvertible { let description: String }
