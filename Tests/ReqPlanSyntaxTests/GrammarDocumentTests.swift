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
            + PlanReader.subPlanKeys + PlanReader.outputKeys
        for key in Set(keys) {
            #expect(Self.grammar.contains("| `\(key)` |"), "`\(key)` is in no keys table")
        }
    }
}
