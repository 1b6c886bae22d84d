import Foundation
import Logging
import ShopEvents
import ShopHub

// shop-hub: the hosted hub (docs/HUB.md). `serve` runs it (ServeCommand.swift, the application
// built in Application+build.swift); `household …` are the operator's commands (HouseholdCommand.swift),
// which read the data folder beside a running hub.

/// `LOG_LEVEL`'s level (`info` when it is unset or empty); a usage failure for any other word.
func logLevel(_ environment: [String: String]) throws -> Logger.Level {
    guard let given = environment["LOG_LEVEL"], !given.isEmpty else { return .info }
    guard let level = Logger.Level(rawValue: given.lowercased()) else {
        let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageFailure(message: "LOG_LEVEL is one of \(levels), not \(HubError.bounded(given))")
    }
    return level
}

func fail(_ message: String) {
    FileHandle.standardError.write(Data("shop-hub: \(message)\n".utf8))
}

func main() async -> Int32 {
    var options = Options(words: Array(CommandLine.arguments.dropFirst()))
    let command = options.words.isEmpty ? "" : options.words.removeFirst()
    let code: Int32
    do {
        // Every command answers --help (`shop-hub household show --help` too).
        if ["--help", "-h", "help"].contains(command) || options.words.contains("--help") || options.words.contains("-h") {
            print(usage(of: command))
            return 0
        }
        let environment = ProcessInfo.processInfo.environment
        let level = try logLevel(environment)
        let given = environment["LOG_LEVEL"]?.isEmpty == false ? level : nil
        switch command {
        case "serve": code = try await serve(&options, level: level)
        case "household": code = try await household(&options, level: given)
        default: throw UsageFailure(message: command.isEmpty ? "a command is needed" : "unknown command \(command)")
        }
    } catch let usageError as UsageFailure {
        fail("\(usageError.message)\n\(usage(of: command))")
        code = 2
    } catch let error as HubError {
        fail("\(error.code): \(error.message)")
        code = 3
    } catch let error as any ShopError {
        fail("\(error.code): \(error.message)")
        code = 3
    } catch {
        fail("\(error)")
        code = 3
    }
    return code
}

exit(await main())
