import ArgumentParser
import ReqPlanSyntax

/// What `import` and `export` write: to standard output, or with `-o` to a file written whole or not at all
/// (`OutputFile`: a temporary file renamed into place); a file that cannot be written ends the command with
/// exit status 74.
enum CommandOutput {
    /// Writes `text` to `path`, or to standard output when `path` is `nil`.
    /// - Throws: `ExitCode(74)` when the file cannot be written (the reason said on standard error).
    static func write(_ text: String, to path: String?) throws {
        guard let path else {
            StandardStreams.write(text, to: .output)
            return
        }
        do {
            try OutputFile.write(text, toPath: path, creatingFolders: false)
        } catch {
            writeError("error: cannot write `\(path)`: \(error.reason)\n")
            throw ExitCode(74)
        }
    }
}
