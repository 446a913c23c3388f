import Foundation
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax
import Testing

/// Golden diagnostics of plans bound to OpenAPI documents: `Tests/Fixtures/openapi/golden/NAME.yaml`, each
/// beside `NAME.expected` holding exactly what `reqplan validate --color never` prints for it (shown as
/// `golden/NAME.yaml`). The documents are the OpenAPI Initiative's examples beside them (see the README
/// there) and ones written for these tests.
///
/// Run with `RECORD_GOLDEN=1` to (re)write the `.expected` files from the current output.
@Suite("Golden diagnostics of plans bound to OpenAPI documents")
struct OpenAPIGoldenTests {
    /// `Tests/Fixtures/openapi`.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/openapi")

    static let goldenDirectory = fixtures.appendingPathComponent("golden")

    static let cases: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: goldenDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(".yaml".count)) }.sorted()
    }()

    /// What `validate` prints for a golden case.
    static func output(_ name: String) -> (ValidationReport, String) {
        let plan = goldenDirectory.appendingPathComponent(name + ".yaml")
        let report = PlanValidator.validate(
            fileAt: plan.path, displayPath: "golden/\(name).yaml", allowFilesOutside: true,
            library: PlanLibrary(apiLoader: OpenAPIDocumentLoader()))
        return (report, ValidationOutput.text([report], colors: false, explain: false, strict: false))
    }

    @Test("there are golden cases, each with its expected output")
    func casesAreComplete() {
        #expect(Self.cases.count >= 5)
        for name in Self.cases where ProcessInfo.processInfo.environment["RECORD_GOLDEN"] != "1" {
            let expected = Self.goldenDirectory.appendingPathComponent(name + ".expected")
            #expect(FileManager.default.fileExists(atPath: expected.path), "\(name).yaml has no \(name).expected")
        }
    }

    @Test("validate prints the recorded diagnostics", arguments: cases)
    func golden(_ name: String) throws {
        let (_, actual) = Self.output(name)
        let expectedFile = Self.goldenDirectory.appendingPathComponent(name + ".expected")
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try actual.write(to: expectedFile, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: expectedFile, encoding: .utf8)
        #expect(actual == expected, "golden/\(name).yaml: output differs from \(name).expected:\n\(actual)")
    }

    @Test("one validate run reports each of five mistakes against a third-party document at its place")
    func fiveMistakesFiveDiagnostics() {
        let (report, _) = Self.output("five-mistakes")
        let found = report.diagnostics.map { "\($0.code.rawValue)@\($0.range?.start.line ?? 0)" }
        #expect(found == ["RP0802@7", "RP0807@11", "RP0809@15", "RP0804@17", "RP0808@20"])
        #expect(report.diagnostics.allSatisfy { $0.hint != nil && $0.range != nil })
    }

    /// `plans/_openapi/data-flow-mistake.yaml`, the example of the demo API's own document.
    static let demoExample = fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("plans/_openapi/data-flow-mistake.yaml")

    @Test("the demo example's data-flow mistakes are caught by validate, as recorded")
    func demoExampleMistakes() throws {
        let report = PlanValidator.validate(
            fileAt: Self.demoExample.path, displayPath: "plans/_openapi/data-flow-mistake.yaml",
            allowFilesOutside: false, library: PlanLibrary(apiLoader: OpenAPIDocumentLoader()))
        let actual = ValidationOutput.text([report], colors: false, explain: false, strict: true)
        let expectedFile = Self.fixtures.appendingPathComponent("demo/data-flow-mistake.expected")
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try actual.write(to: expectedFile, atomically: true, encoding: .utf8)
            return
        }
        #expect(report.diagnostics.map(\.code.rawValue) == ["RP0808", "RP0809"])
        let expected = try String(contentsOf: expectedFile, encoding: .utf8)
        #expect(actual == expected, "plans/_openapi/data-flow-mistake.yaml: output differs:\n\(actual)")
    }
}
