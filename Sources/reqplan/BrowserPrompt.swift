import Foundation
import ReqPlanRuntime
import ReqPlanSyntax

/// What `reqplan run` does when an `authorization_code` grant needs the user: prints the address that starts
/// the sign-in on standard error and, with `--open-browser`, opens it (`$BROWSER`, else `xdg-open` on Linux and
/// `open` on macOS). A browser that cannot be opened is a warning: the address stays printed.
struct BrowserPrompt: Sendable {
    var opening: Bool

    init(opening: Bool) { self.opening = opening }

    func show(_ prompt: AuthorizationPrompt) {
        let wait = PlanDuration(milliseconds: Int(prompt.wait.milliseconds))
        writeError(
            "To authorize the run, open this address in a browser (it goes on to \(prompt.endpoint) to sign in):\n"
                + "    \(prompt.url)\n"
                + "Waiting up to \(wait) for the authorization (--authorization-timeout).\n")
        if opening { Self.open(prompt.url, environment: ProcessInfo.processInfo.environment) }
    }

    /// The command that opens `url`: the first command of `$BROWSER` (commands separated by `:`, as its
    /// convention has them), its words split at spaces, with `%s` replaced by the address or the address added
    /// last; else the system's opener.
    static func command(opening url: String, environment: [String: String]) -> [String] {
        let browser = environment["BROWSER"]?.split(separator: ":").first.map {
            $0.split(separator: " ").map(String.init)
        }
        guard let words = browser, !words.isEmpty else {
            #if os(macOS)
                return ["open", url]
            #else
                return ["xdg-open", url]
            #endif
        }
        let replaced = words.map { $0.replacingOccurrences(of: "%s", with: url) }
        return replaced == words ? words + [url] : replaced
    }

    /// Starts the command that opens `url` and returns at once; its failure is a warning on standard error.
    static func open(_ url: String, environment: [String: String]) {
        let command = command(opening: url, environment: environment)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let name = command[0]
        process.terminationHandler = { ended in
            guard ended.terminationStatus != 0 else { return }
            writeError(
                "warning: `\(name)` did not open a browser (exit status \(ended.terminationStatus)): open the "
                    + "address above yourself\n")
        }
        do {
            try process.run()
        } catch {
            writeError("warning: cannot start `\(name)` to open a browser: open the address above yourself\n")
        }
    }
}
