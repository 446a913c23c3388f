import ArgumentParser
import Logging
import Foundation
import ReqPlanPipeline
import ReqPlanSyntax

/// When to color output.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    /// Whether to color what goes to standard output.
    var enabled: Bool { enabled(for: STDOUT_FILENO) }

    /// Whether to color what goes to `descriptor` (`auto`: a terminal, and `NO_COLOR` unset).
    func enabled(for descriptor: Int32) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = ProcessInfo.processInfo.environment["NO_COLOR"], !noColor.isEmpty { return false }
            return isatty(descriptor) == 1
        }
    }
}

/// Options every command that reads plans shares.
struct PlanReadingOptions: ParsableArguments {
    @Option(name: .customLong("max-plan-size"), help: "Largest plan file accepted, in bytes.")
    var maxPlanSize: Int = ParseLimits().maxFileSize

    @Flag(
        name: .customLong("allow-files-outside"),
        help: "Let the files a plan names (sub-plans, body_file, multipart files) come from outside its folder.")
    var allowFilesOutside = false

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "Where an Arazzo source description is served (default: its first server).", valueName: "NAME=URL"))
    var servers: [String] = []

    @Option(name: .customLong("workflow"), help: "The Arazzo workflow to run, with those it depends on (default: all).")
    var workflow: String?

    @Flag(
        name: .customLong("parallel"),
        help: ArgumentHelp(
            "Run a sequential Arazzo workflow's steps by their data flow, writes to the same resource path kept in order."
        ))
    var parallel = false

    @Option(
        name: .customLong("credential"),
        help: ArgumentHelp(
            "Credentials for a security scheme of the bound API descriptions: a key or token, or one field (username, password, client_id, client_secret, client_auth, refresh_token, private_key, key_id); replaces the plan's for that scheme.",
            valueName: "SCHEME[.FIELD]=VALUE"))
    var credentials: [String] = []

    /// `--server NAME=URL`, by name.
    func serverURLs() throws -> [String: String] {
        var result: [String: String] = [:]
        for written in servers {
            guard let equals = written.firstIndex(of: "="), equals != written.startIndex else {
                throw ValidationError("--server is written NAME=URL, found `\(written)`")
            }
            result[String(written[..<equals])] = String(written[written.index(after: equals)...])
        }
        return result
    }

    /// `--credential SCHEME[.FIELD]=VALUE`, by scheme.
    func commandLineCredentials() throws -> CommandLineCredentials {
        do {
            return try CommandLineCredentials(parsing: credentials)
        } catch {
            throw ValidationError(error.description)
        }
    }

    var limits: ParseLimits {
        ParseLimits(maxFileSize: maxPlanSize, sizeSetting: "--max-plan-size", outsideSetting: "--allow-files-outside")
    }

    /// The composition root, reading plans as these options say.
    func pipeline() throws -> Pipeline {
        Pipeline(
            reading: Pipeline.Reading(
                limits: limits, allowFilesOutside: allowFilesOutside, servers: try serverURLs(), workflow: workflow,
                parallel: parallel, credentials: try commandLineCredentials()))
    }
}

/// Writes to standard output, checked (`StandardStreams`).
func write(_ text: String) {
    StandardStreams.write(text, to: .output)
}

/// Writes to standard error, checked (`StandardStreams`).
func writeError(_ text: String) {
    StandardStreams.write(text, to: .error)
}

/// The terminal's height in rows (standard error), or 40 when it cannot be told.
func terminalRows() -> Int {
    var size = winsize()
    guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 40 }
    return Int(size.ws_row)
}

/// `--log-level`: diagnostics for people working on reqplan itself, on standard error through swift-log.
/// What users read (progress, summary, diagnostics) never goes through it.
struct LoggingOptions: ParsableArguments {
    enum Level: String, ExpressibleByArgument, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    @Option(
        name: .customLong("log-level"),
        help: "Developer logs on standard error: trace, debug, info, notice, warning, error or critical.")
    var level: Level = .warning

    /// A logger writing to standard error at the chosen level.
    func logger(label: String) -> Logger {
        var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = Logger.Level(rawValue: level.rawValue) ?? .warning
        return logger
    }

    /// The level, for components that make their own loggers.
    var swiftLogLevel: Logger.Level { Logger.Level(rawValue: level.rawValue) ?? .warning }
}
