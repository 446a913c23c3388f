import Foundation
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// A plan bound to a real description (the OpenAPI Initiative's `petstore-expanded`), checked with the
/// language server's caches (`PlanReadCache`, `APICheckCache`): after any edit, what the check finds is what
/// checking the plan whole finds, and an edit in one step checks again only that step and its readers.
@Suite struct APICheckCacheTests {
    /// `count` rounds of a pet added, found by id (both ways of naming an operation, and a plain URL matched
    /// to one), and listed with a limit read from a string field (a type mistake, RP0851).
    static func plan(rounds count: Int) -> String {
        var text = "reqplan: 1\nopenapi:\n  pets: { file: petstore-expanded.yaml, base_url: \"http://127.0.0.1:9\" }\n"
        text += "inputs: { limit: 5 }\nsteps:\n"
        for index in 0..<count {
            text += "  add\(index):\n    request: { operation: pets.addPet, json: { name: n\(index), tag: t } }\n"
            text += "  find\(index):\n    request:\n      operation: pets.find pet by id\n"
            text += "      path: { id: \"${{ steps.add\(index).body.id }}\" }\n"
            text += "  list\(index):\n    needs: [find\(index)]\n"
            text +=
                "    request: { operation: pets.findPets, query: { limit: \"${{ steps.find\(index).body.name }}\" } }\n"
            text +=
                "  again\(index):\n    request: { url: \"http://127.0.0.1:9/pets/${{ steps.add\(index).body.id }}\" }\n"
            text += "    expect: { body: { name: { exists: true } } }\n"
        }
        text += "outputs:\n  last: \"${{ steps.find0.body.tag }}\"\n"
        return text
    }

    static let path = OpenAPIFixtures.folder.appendingPathComponent("generated-plan.yaml").path

    /// What a check finds, in a form that compares.
    static func found(_ report: ValidationReport) -> [String] {
        report.diagnostics.map { "\($0)" }.sorted()
    }

    /// What edits insert: pieces of expressions, operations and names.
    static let pieces = [
        "x", "1", ".", "${{ ", " }}", "steps.add0.body.", "name", "id", "pets.", "deletePet", "\n", ": ", "{",
        "}", "\"", "  find0: { request: { url: /pets } }\n",
    ]

    @Test(arguments: [1, 2])
    func randomEditsFindWhatCheckingTheWholePlanFinds(seed: UInt64) async throws {
        // On a thread of its own, off the tests' shared pool: 80 checks of a 60-step plan.
        let (mismatch, counts) = try await offCooperativePool { () -> (String?, (kept: Int, checked: Int)) in
            var random = SeededGenerator(seed: seed)
            let descriptions = CachingAPIDescriptionLoader(OpenAPIDocumentLoader())
            let steps = PlanReadCache()
            let checks = APICheckCache()
            let original = Self.plan(rounds: 15)
            var counts = (kept: 0, checked: 0)
            for round in 0...40 {
                var text = original
                if round > 0 { text = randomEdit(of: original, pieces: Self.pieces, removing: 3, using: &random) }
                let source = SourceFile(path: Self.path, text: text)
                let cached = PlanValidator.validate(
                    source, library: PlanLibrary(apiLoader: descriptions, readCache: steps, apiCheckCache: checks))
                if let last = cached.apiStepChecks {
                    counts = (counts.kept + last.kept, counts.checked + last.checked)
                }
                let whole = PlanValidator.validate(source, library: PlanLibrary(apiLoader: descriptions))
                func filledIn(_ report: ValidationReport) -> [String]? {
                    report.plan?.allSteps.map {
                        "\($0.request?.method?.value.rawValue ?? "") \(String(describing: $0.request?.url.range))"
                    }
                }
                if Self.found(cached) != Self.found(whole)
                    || cached.operations.keys.sorted() != whole.operations.keys.sorted()
                    || filledIn(cached) != filledIn(whole)
                {
                    return ("round \(round), seed \(seed):\n\(text)", counts)
                }
            }
            return (nil, counts)
        }
        #expect(mismatch == nil)
        // Edits around the steps, or that break the layout, check the plan whole; most others keep most steps.
        #expect(counts.kept > 2 * counts.checked, "kept \(counts.kept), checked \(counts.checked)")
    }

    @Test func anEditInOneStepChecksItAndTheStepsThatReadIt() throws {
        let descriptions = CachingAPIDescriptionLoader(OpenAPIDocumentLoader())
        let steps = PlanReadCache()
        let checks = APICheckCache()
        func check(_ text: String) -> ValidationReport {
            PlanValidator.validate(
                SourceFile(path: Self.path, text: text),
                library: PlanLibrary(apiLoader: descriptions, readCache: steps, apiCheckCache: checks))
        }
        let original = Self.plan(rounds: 10)
        let first = check(original)
        #expect(first.errorCount == 10, "\(first.diagnostics)")
        #expect(first.apiStepChecks == .init(kept: 0, checked: 40))
        // `add3` names an operation the description does not have: itself and the two steps that read its body
        // are checked again.
        let edited = original.replacingOccurrences(
            of: "operation: pets.addPet, json: { name: n3, tag: t }",
            with: "operation: pets.addPett, json: { name: n3, tag: t }")
        #expect(edited != original)
        let second = check(edited)
        #expect(second.apiStepChecks == .init(kept: 37, checked: 3))
        let whole = PlanValidator.validate(
            SourceFile(path: Self.path, text: edited), library: PlanLibrary(apiLoader: descriptions))
        #expect(Self.found(second) == Self.found(whole))
        #expect(second.diagnostics.contains { $0.code == .unknownOperation })
    }
}
