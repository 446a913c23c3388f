import Foundation
import ReqPlanArazzo
import ReqPlanLanguageServer
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// RP1014 (another Arazzo runner's shorthand) carries its fix, the specification's form; the code action
/// writes it in place, quoted as YAML needs it, and the document then validates without the warning.
@Suite struct OtherRunnersFixTests {
    /// `Tests/Fixtures/arazzo/golden`, where each shorthand has its case.
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/arazzo/golden")

    /// The diagnostics `reqplan lsp` publishes for `text` at `path`, read as its library reads documents.
    private func published(_ text: String, at path: String) -> [Value] {
        let library = PlanLibrary(
            apiLoader: OpenAPIDocumentLoader(), documentReader: ArazzoReader(apiLoader: OpenAPIDocumentLoader()))
        let report = PlanValidator.validate(SourceFile(path: path, text: text), library: library)
        let uri = DocumentURI(filePath: path)
        var conversion = DiagnosticConversion(
            path: path, uri: uri, openDocuments: [:], relatedInformation: true, sources: report.sources)
        return conversion.convert(report.diagnostics)[uri] ?? []
    }

    @Test(
        "the shorthand's code action writes the specification's form, and the document then validates without it",
        arguments: [
            ("shorthand-operation-id", "$sourceDescriptions.petstore.getPetCoupons"),
            (
                "shorthand-operation-path-respect",
                "'{$sourceDescriptions.petstore.url}#/paths/~1pet~1{petId}~1coupons/get'"
            ),
            (
                "shorthand-operation-path-arazzo-runner",
                "\"{$sourceDescriptions.petstore.url}#/paths/~1pet~1{petId}~1coupons/get\""
            ),
            ("shorthand-workflow-id", "$sourceDescriptions.orders.place-order"),
        ])
    func theShorthandIsRewritten(_ name: String, _ replacement: String) throws {
        let path = Self.golden.appendingPathComponent(name + ".arazzo.yaml").path
        let uri = DocumentURI(filePath: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let before = published(text, at: path)
        let warning = try #require(before.first { $0["code"] == .string("RP1014") }, "\(before)")
        #expect(warning["severity"] == .int(2))
        let document = TextDocument(uri: uri, version: 1, text: text)
        let actions = QuickFix.actions(for: [warning], in: document)
        try #require(actions.count == 1)
        let action = actions[0]
        #expect(action["kind"] == .string("quickfix") && action["isPreferred"] == .bool(true))
        #expect(action["title"] == .string("Write the specification's form `\(replacement.trimmingQuotes)`"))
        guard case .list(let edits)? = action["edit"]?["changes"]?[uri.text], edits.count == 1,
            let range = TextRange(edits[0]["range"]), case .string(let newText)? = edits[0]["newText"]
        else {
            Issue.record("no edit in \(action)")
            return
        }
        #expect(newText == replacement)
        let fixed = text.replacing(range, with: newText)
        let after = published(fixed, at: path)
        #expect(!after.contains { $0["code"] == .string("RP1014") }, "\(after)")
        #expect(!after.contains { $0["severity"] == .int(1) }, "\(after)")
        // Every other diagnostic is as it was.
        #expect(after.count == before.count - 1)
        // Offered only while the shorthand is still there.
        let changed = TextDocument(uri: uri, version: 2, text: fixed)
        #expect(QuickFix.actions(for: [warning], in: changed).isEmpty)
    }
}

extension String {
    /// The text inside its quotes, when it is quoted.
    fileprivate var trimmingQuotes: String {
        guard let first, first == "'" || first == "\"", count >= 2, last == first else { return self }
        return String(dropFirst().dropLast())
    }
}
