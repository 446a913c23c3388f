import ReqPlanLanguageServer
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// The validator's diagnostics as LSP's: ranges in UTF-16, the hint and notes, related information or not.
@Suite struct DiagnosticConversionTests {
    static let uri = DocumentURI(filePath: "/plans/p.yaml")

    private func convert(_ text: String, relatedInformation: Bool) -> [Value] {
        let source = SourceFile(path: "/plans/p.yaml", text: text)
        let report = PlanValidator.validate(source)
        var conversion = DiagnosticConversion(
            path: source.path, uri: Self.uri, openDocuments: [:], relatedInformation: relatedInformation,
            sources: report.sources)
        return conversion.convert(report.diagnostics)[Self.uri] ?? []
    }

    /// A step id given twice in one mapping: RP0003, with a note at the first one.
    static let duplicate = """
        reqplan: 1
        steps:
          "𝄞": { request: { url: "http://h/a" } }
        # é
          "𝄞": { request: { url: "http://h/b" } }

        """

    @Test func aLocatedNoteIsRelatedInformationWhenTheClientShowsIt() throws {
        let converted = convert(Self.duplicate, relatedInformation: true)
        let duplicate = try #require(
            converted.first { $0["code"] == .string("RP0003") })
        guard case .list(let related)? = duplicate["relatedInformation"], let first = related.first else {
            Issue.record("no related information: \(duplicate)")
            return
        }
        #expect(first["location"]?["uri"] == .string(Self.uri.text))
        // The first `"𝄞"` (line 3, after two spaces): four UTF-16 units with its quotes.
        #expect(
            TextRange(first["location"]?["range"])
                == TextRange(start: .init(line: 2, character: 2), end: .init(line: 2, character: 6)))
        #expect(
            TextRange(duplicate["range"])
                == TextRange(start: .init(line: 4, character: 2), end: .init(line: 4, character: 6)))
    }

    @Test func withoutRelatedInformationNotesAreLinesOfTheMessage() throws {
        let converted = convert(Self.duplicate, relatedInformation: false)
        let duplicate = try #require(
            converted.first { $0["code"] == .string("RP0003") })
        #expect(duplicate["relatedInformation"] == nil)
        guard case .string(let message)? = duplicate["message"] else {
            Issue.record("no message")
            return
        }
        #expect(message.contains("\nnote: `𝄞` is first given here"), "\(message)")
    }

    @Test func aDiagnosticWithoutARangeIsAtTheStartOfTheDocument() {
        var conversion = DiagnosticConversion(
            path: "/plans/p.yaml", uri: Self.uri, openDocuments: [:], relatedInformation: true, sources: [])
        let converted = conversion.convert([
            Diagnostic(.warning, .unusedInput, "input `x` is never used", hint: "remove it")
        ])
        let only = converted[Self.uri]?.first
        #expect(
            TextRange(only?["range"])
                == TextRange(start: .init(line: 0, character: 0), end: .init(line: 0, character: 0)))
        #expect(only?["message"] == .string("input `x` is never used\nremove it"))
        #expect(only?["severity"] == .int(2))
        #expect(only?["tags"] == .list([.int(1)]))
    }
}
