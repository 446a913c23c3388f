import ArgumentParser
import ReqPlanPresentation

/// Writes the report of each `--report KIND:PATH` with `write`, one after the other: one that cannot be
/// written is said on standard error with its reason, and the others are still written.
/// - Returns: whether every report was written.
func writeReportFiles(_ destinations: [ReportDestination], with write: (ReportDestination) throws -> Void) -> Bool {
    var written = true
    for destination in destinations {
        do {
            try write(destination)
        } catch {
            writeError(
                "error: cannot write the \(destination.kind.rawValue) report to `\(destination.path)`: \(error)\n")
            written = false
        }
    }
    return written
}

extension ReportDestination {
    /// `--report KIND:PATH`, read once where the option is parsed; a value of another form is a usage error.
    static func parsedOption(_ text: String) throws -> ReportDestination {
        do {
            return try ReportDestination(parsing: text)
        } catch {
            throw ValidationError(error.message)
        }
    }
}
