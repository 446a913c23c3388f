import Foundation
import Testing

@testable import ReqPlanSyntax

/// grammar.md, the normative reference, names everything the language has.
@Suite struct GrammarDocumentTests {
    static let grammar: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("grammar.md"), encoding: .utf8)) ?? ""
    }()

    @Test func everyDiagnosticCodeIsInTheTableOfCodes() {
        #expect(!Self.grammar.isEmpty)
        for code in DiagnosticCode.all {
            #expect(Self.grammar.contains("| \(code.rawValue) | \(code.title) |"), "\(code.rawValue) is not in §14")
        }
    }

    /// Every code written anywhere in `Sources/` (a `DiagnosticCode("RP…"` or any `RPnnnn` in a string), not only
    /// those listed in `DiagnosticCode.all`: the run-time ones (RP05xx) included.
    @Test func everyCodeInTheSourcesIsInDiagnosticCodeAllAndDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var found: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /RP[0-9]{4}/) { found.insert(String(match.output)) }
        }
        #expect(found.count >= DiagnosticCode.all.count)
        let listed = Set(DiagnosticCode.all.map(\.rawValue))
        for code in found.sorted() {
            #expect(listed.contains(code), "\(code) is in Sources/ but not in DiagnosticCode.all")
            #expect(Self.grammar.contains("| \(code) |"), "\(code) is in Sources/ but not in grammar.md §14")
        }
    }

    @Test func everyFunctionAndResultFieldIsDocumented() {
        for function in BuiltinFunction.allCases {
            #expect(Self.grammar.contains("| `\(function.signature)` |"), "\(function.signature) is not in §10.9")
        }
        for field in ResultField.allCases {
            #expect(Self.grammar.contains("| `\(field.rawValue)` |"), "\(field.rawValue) is not in §10.8")
        }
    }

    @Test func everyKeyIsInAKeysTable() {
        let keys =
            PlanReader.planKeys + PlanReader.inputKeys + PlanReader.defaultsKeys + PlanReader.requestKeys
            + PlanReader.retryKeys + PlanReader.expectKeys + PlanReader.matcherKeys + PlanReader.multipartKeys
            + PlanReader.commonStepKeys + PlanReader.pollKeys + PlanReader.pollIntervalKeys
            + PlanReader.subPlanKeys + PlanReader.outputKeys + PlanReader.sloKeys
        for key in Set(keys) {
            #expect(Self.grammar.contains("| `\(key)` |"), "`\(key)` is in no keys table")
        }
    }
}
