import ArgumentParser
import ReqPlanPresentation

/// Writes the report of each `--report KIND:PATH` with `write`, one after the other: one that cannot be
/// written is said on standard error with its reason, and the others are still written.
/// - Returns: whether every report was written.
func writeReportFiles<Destination: ReportFileDestination>(
    _ destinations: [Destination], with write: (Destination) throws -> Void
) -> Bool {
    var written = true
    for destination in destinations {
        do {
            try write(destination)
        } catch {
            writeError("error: cannot write the \(destination.kindName) report to `\(destination.path)`: \(error)\n")
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

/// Where a report goes: a run's (`ReportDestination`) or a load's (`LoadReportDestination`).
protocol ReportFileDestination {
    /// The report's kind, as `--report` names it.
    var kindName: String { get }
    /// The file.
    var path: String { get }
}

extension ReportDestination: ReportFileDestination {
    var kindName: String { kind.rawValue }
}

extension LoadReportDestination: ReportFileDestination {
    var kindName: String { kind.rawValue }
}
