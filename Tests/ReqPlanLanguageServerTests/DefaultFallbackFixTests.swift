import Foundation
import ReqPlanLanguageServer
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// RP0853 (a value that may be absent, where one is required) carries a fix that wraps the expression in
/// `default(…)`; applied, the warning goes.
@Suite struct DefaultFallbackFixTests {
    /// A plan bound to an OpenAPI description whose `Sid` path parameter is given an optional response field.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/openapi/golden/path-templates.yaml").path
    static let uri = DocumentURI(filePath: path)

    private func published(_ text: String) -> [Value] {
        let source = SourceFile(path: Self.path, text: text)
        let report = PlanValidator.validate(source, library: PlanLibrary(apiLoader: OpenAPIDocumentLoader()))
        var conversion = DiagnosticConversion(
            path: Self.path, uri: Self.uri, openDocuments: [:], relatedInformation: true, sources: report.sources)
        return conversion.convert(report.diagnostics)[Self.uri] ?? []
    }

    /// The RP0853 of `text`, its one code action, and the text that action leaves.
    private func fix(_ text: String) throws -> (action: Value, fixed: String) {
        let warning = try #require(published(text).first { $0["code"] == .string("RP0853") })
        let document = TextDocument(uri: Self.uri, version: 1, text: text)
        let actions = QuickFix.actions(for: [warning], in: document)
        try #require(actions.count == 1)
        guard case .list(let edits)? = actions[0]["edit"]?["changes"]?[Self.uri.text], edits.count == 1,
            let range = TextRange(edits[0]["range"]), case .string(let newText)? = edits[0]["newText"]
        else {
            Issue.record("no edit in \(actions[0])")
            throw CancellationError()
        }
        // Offered only while the text is still there.
        let changed = TextDocument(
            uri: Self.uri, version: 2, text: text.replacingOccurrences(of: "first.body.sid", with: "first.body.si"))
        #expect(QuickFix.actions(for: [warning], in: changed).isEmpty)
        return (actions[0], text.replacing(range, with: newText))
    }

    @Test func aPossiblyAbsentPathParameterIsWrappedInDefault() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        let (action, fixed) = try fix(text)
        #expect(action["title"] == .string("Wrap in `default(…)` with the fallback ''"))
        #expect(action["kind"] == .string("quickfix") && action["isPreferred"] == .bool(false))
        #expect(fixed.contains(#"Sid: "${{ default(steps.first.body.sid, '') }}" }"#), "\(fixed)")
        #expect(!published(fixed).contains { $0["code"] == .string("RP0853") })
        #expect(
            PlanValidator.validate(SourceFile(path: Self.path, text: fixed)).errorCount
                == PlanValidator.validate(SourceFile(path: Self.path, text: text)).errorCount)
    }

    @Test func inASingleQuotedStringTheFallbackIsWrittenInDoubleQuotes() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
            .replacingOccurrences(of: #""${{ steps.first.body.sid }}""#, with: "'${{ steps.first.body.sid }}'")
        let (_, fixed) = try fix(text)
        #expect(fixed.contains(#"Sid: '${{ default(steps.first.body.sid, "") }}' }"#), "\(fixed)")
        #expect(!published(fixed).contains { $0["code"] == .string("RP0853") })
    }
}
