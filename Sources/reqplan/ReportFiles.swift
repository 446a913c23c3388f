import ReqPlanPresentation

/// Writes the report of each `--report KIND:PATH` in `options` with `write`, one after the other:
/// one that cannot be written is said on standard error with its reason, and the others are still
/// written.
/// - Returns: whether every report was written.
func writeReportFiles(_ options: [String], with write: (ReportDestination) throws -> Void) -> Bool {
    var written = true
    for text in options {
        do {
            let destination = try ReportDestination(parsing: text)
            do {
                try write(destination)
            } catch {
                writeError(
                    "error: cannot write the \(destination.kind.rawValue) report to `\(destination.path)`: \(error)\n")
                written = false
            }
        } catch {
            writeError("error: \(error.message)\n")
            written = false
        }
    }
    return written
}
