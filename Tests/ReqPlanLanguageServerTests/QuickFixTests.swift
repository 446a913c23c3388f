import Foundation
import ReqPlanLanguageServer
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// A did-you-mean diagnostic carries its fix, and the code action replaces the misspelt name with it.
@Suite struct QuickFixTests {
    static let uri = DocumentURI(filePath: "/plans/p.yaml")
    static let text = """
        reqplan: 1
        steps:
          login: { request: { url: "http://h/login" } }
          fetch: { descripton: "𝄞", needs: [logn], request: { url: "http://h/${{ steps.logn.status }}" } }

        """

    private func diagnostics() -> [Value] {
        let source = SourceFile(path: Self.uri.filePath ?? "", text: Self.text)
        let report = PlanValidator.validate(source)
        var conversion = DiagnosticConversion(
            path: source.path, uri: Self.uri, openDocuments: [:], relatedInformation: true, sources: report.sources)
        return conversion.convert(report.diagnostics)[Self.uri] ?? []
    }

    @Test func aMisspeltNeedAndAMisspeltKeyAreFixedByTheirSuggestion() throws {
        let document = TextDocument(uri: Self.uri, version: 1, text: Self.text)
        let published = diagnostics()
        let need = try #require(published.first { $0["code"] == .string("RP0301") })
        #expect(need["data"] == .object([.init("replace", .string("logn")), .init("with", .string("login"))]))
        let actions = published.flatMap { QuickFix.actions(for: [$0], in: document) }
        let titles = actions.compactMap { action -> String? in
            if case .string(let title)? = action["title"] { title } else { nil }
        }
        #expect(titles.contains("Replace `logn` with `login`"), "\(titles)")
        #expect(titles.contains("Replace `descripton` with `description`"), "\(titles)")
        #expect(actions.allSatisfy { $0["kind"] == .string("quickfix") && $0["isPreferred"] == .bool(true) })
        // Applied, in reverse order of position, the fixes leave a plan without errors.
        let edits = actions.compactMap { action -> (TextRange, String)? in
            guard case .list(let list)? = action["edit"]?["changes"]?[Self.uri.text], list.count == 1,
                let edit = list.first,
                let range = TextRange(edit["range"]), case .string(let text)? = edit["newText"]
            else { return nil }
            return (range, text)
        }
        #expect(edits.count == actions.count)
        var fixed = document
        for (range, text) in edits.sorted(by: { $0.0.start > $1.0.start }) {
            fixed.text = fixed.text.replacing(range, with: text)
        }
        let after = PlanValidator.validate(SourceFile(path: "/plans/p.yaml", text: fixed.text))
        #expect(after.errorCount == 0, "\(after.diagnostics.map(\.message))\n\(fixed.text)")
    }

    @Test func noFixIsOfferedWhereTheTextChangedSince() throws {
        let need = try #require(diagnostics().first { $0["code"] == .string("RP0301") })
        let changed = TextDocument(
            uri: Self.uri, version: 2, text: Self.text.replacingOccurrences(of: "[logn]", with: "[lgon]"))
        #expect(QuickFix.actions(for: [need], in: changed).isEmpty)
    }
}
