import ReqPlanSyntax

/// The JSON of a collection export (Postman, Insomnia), read as the HAR reader reads its log: numbers keep
/// their digits, nesting is bounded (512 levels), a byte order mark some exports start with is skipped.
enum CollectionSource {
    /// The value of `source`'s JSON text, or RP1401 located at the first bad byte, with `hint`.
    static func json(of source: SourceFile, hint: String) -> Result<Value, Diagnostic> {
        let text = source.text.hasPrefix("\u{FEFF}") ? String(source.text.dropFirst()) : source.text
        do {
            return .success(try Value.parseJSON(text))
        } catch {
            var diagnostic = Diagnostic.error(
                .importSourceMalformed, "`\(source.path)` is not JSON: \(error.message)",
                at: SourceRange(at: HARReader.location(ofByte: error.offset, in: source.text)), hint: hint)
            diagnostic.file = source.path
            return .failure(diagnostic)
        }
    }
}

extension ImportedPlan {
    /// Takes what a reader read after this plan's requests: its steps, its notes and the inputs (the reader
    /// began with this plan's table).
    mutating func append(_ read: ImportedPlan) {
        steps += read.steps
        inputs = read.inputs
        notes += read.notes
    }
}
