import Foundation
import ReqPlanSyntax
import Testing

@testable import ReqPlanJSONPath

/// The JSONPath Compliance Test Suite (`Tests/Fixtures/jsonpath/cts.json`, see the NOTICE there): every
/// valid query gives the expected nodelist (`result`, or one of `results` where an object's members
/// make the order undetermined), every `invalid_selector` fails to compile.
@Suite struct ComplianceTestSuiteTests {
    /// One case of the suite.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var selector: String
        var document: Value?
        /// The nodelists the RFC allows, or empty for a query that must not compile.
        var results: [[Value]]

        var testDescription: String { name }
    }

    /// The cases of `cts.json`, read with reqplan's own JSON reader (the documents are the language's values).
    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/jsonpath/cts.json")
        guard let data = try? Data(contentsOf: url), let suite = try? Value.parseJSON(bytes: Array(data)),
            case .list(let tests)? = suite["tests"]
        else { return [] }
        return tests.compactMap { test -> Case? in
            guard case .string(let name)? = test["name"], case .string(let selector)? = test["selector"] else {
                return nil
            }
            var results: [[Value]] = []
            if case .list(let result)? = test["result"] { results = [result] }
            if case .list(let alternatives)? = test["results"] {
                results = alternatives.compactMap { if case .list(let result) = $0 { result } else { nil } }
            }
            return Case(name: name, selector: selector, document: test["document"], results: results)
        }
    }()

    @Test func suiteIsReadWhole() {
        #expect(Self.cases.count == 703)
        #expect(Self.cases.filter { $0.document == nil }.count == 247)
    }

    @Test func everyCaseGivesTheExpectedResult() {
        var failures: [String] = []
        for test in Self.cases {
            let compiled: JSONPath
            do {
                compiled = try JSONPath.compile(test.selector)
            } catch {
                if test.document != nil { failures.append("\(test.name): does not compile: \(error)") }
                continue
            }
            guard let document = test.document else {
                failures.append("\(test.name): `\(test.selector)` compiles but is invalid")
                continue
            }
            do {
                let nodes = try compiled.select(in: document)
                if !test.results.contains(where: { expected in
                    expected.count == nodes.count && zip(expected, nodes).allSatisfy { JSONPathEvaluator.equal($0, $1) }
                }) {
                    failures.append("\(test.name): `\(test.selector)` gives \(Value.list(nodes).jsonText())")
                }
            } catch {
                failures.append("\(test.name): \(error)")
            }
        }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(Self.cases.count) cases fail:\n\(failures.joined(separator: "\n"))")
    }
}
