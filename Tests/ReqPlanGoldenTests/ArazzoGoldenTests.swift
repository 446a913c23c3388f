import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax
import Testing

/// Golden diagnostics of Arazzo documents: `Tests/Fixtures/arazzo/golden/NAME.arazzo.yaml`, each with one
/// mistake, beside `NAME.expected` holding exactly what `reqplan validate --color never` prints for it
/// (shown as `golden/NAME.arazzo.yaml`). They run against the OpenAPI Initiative's pet-coupons description
/// (`../examples/`).
///
/// Run with `RECORD_GOLDEN=1` to (re)write the `.expected` files from the current output.
@Suite("Golden diagnostics of Arazzo documents")
struct ArazzoGoldenTests {
    /// `Tests/Fixtures/arazzo`.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/arazzo")

    static let goldenDirectory = fixtures.appendingPathComponent("golden")

    static let suffix = ".arazzo.yaml"

    static let cases: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: goldenDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }.sorted()
    }()

    /// A library that reads Arazzo documents and the OpenAPI descriptions they name, as the command line's.
    static func library() -> PlanLibrary {
        PlanLibrary(
            apiLoader: OpenAPIDocumentLoader(), documentReader: ArazzoReader(apiLoader: OpenAPIDocumentLoader()))
    }

    /// What `validate` prints for the document at `file`, shown as `shown`.
    static func validate(_ file: URL, shownAs shown: String) -> (ValidationReport, String) {
        let report = PlanValidator.validate(
            fileAt: file.path, displayPath: shown, allowFilesOutside: true, library: library())
        return (report, ValidationOutput.text([report], colors: false, explain: false, strict: false))
    }

    @Test("there are golden cases, each with its expected output")
    func casesAreComplete() {
        #expect(Self.cases.count >= 8)
        for name in Self.cases where ProcessInfo.processInfo.environment["RECORD_GOLDEN"] != "1" {
            let expected = Self.goldenDirectory.appendingPathComponent(name + ".expected")
            #expect(FileManager.default.fileExists(atPath: expected.path), "\(name) has no \(name).expected")
        }
    }

    /// The code of each case's mistake.
    static let codes = [
        "asyncapi-source": "RP1002", "depends-on-cycle": "RP0302", "forward-reference": "RP1009",
        "goto-target-missing": "RP1006", "missing-required-parameter": "RP0804",
        // A workflow of another Arazzo document (`type: arazzo`) that it does not have.
        "external-workflow-missing": "RP1008",
        // A workflow that depends on one the document does not have.
        "workflow-depends-on-unknown": "RP1008",
        // A selector object (1.1) whose JSON pointer the response schema does not have.
        "selector-not-in-schema": "RP0808",
        // A payload written as JSON text, a value in it of the wrong type, located inside the text.
        "json-payload-wrong-type": "RP0807",
        // A `goto` back to an earlier step: a loop, run as a state machine (valid: the warning of its data only).
        "goto-loop": "",
        // Criteria that do not compile, each reported in the text the document has.
        "regex-invalid": "RP0113", "xpath-invalid": "RP0116", "jsonpath-invalid": "RP0117",
        // A field the schema does not declare but does not rule out: a warning, an error with `--strict`.
        "pointer-not-in-schema": "RP0852",
        "unknown-operation-id": "RP0802", "workflow-depends-on-cycle": "RP0302", "unknown-source-description": "RP1003",
        "unknown-step-output": "RP1007",
        // A payload replacement: its value checked against the body schema at its target, or a target
        // that is not in the payload.
        "replacement-wrong-type": "RP0807", "replacement-target-missing": "RP0105",
        // Numbers past the bounds plans have (a week's wait, 10,000 attempts), refused before any arithmetic:
        // they crashed validate (SIGILL) or polled without end.
        "retry-after-infinite": "RP0105", "retry-limit-int-max": "RP0105", "retry-limit-past-plan-bound": "RP0105",
        "timeout-past-a-week": "RP0105",
        // Two workflows that run each other: one cycle, named by its workflows.
        "workflow-cycle": "RP0303",
        // Control flow run as a state machine: a failure a goto handles, a goto to a workflow with its inputs
        // (valid); a parameter of such a goto that says where it goes; a goto on failure beside `dependsOn`, the one
        // kind of control flow left unsupported.
        "goto-on-failure": "", "goto-workflow": "", "goto-workflow-parameter-in": "RP1011",
        "goto-on-failure-depends-on": "RP1002",
        // A workflow's input schema is open unless it says `additionalProperties: false`: an input it does not
        // list is read with a warning (and `$inputs.pet.id` reads into an object input); an error where the schema
        // is closed, or where the name is a misspelling of one it lists.
        "inputs-open-schema": "", "inputs-closed-schema": "RP0204", "inputs-misspelt": "RP0204",
        // Valid: the criteria and a retry fit the description, so nothing but the warning of `valid`.
        "valid": "", "valid-criteria-and-retry": "",
        // Another runner's shorthand, read as the specification's form with a warning that gives that form:
        // Respect's `operationId: SOURCE.opId`, `operationPath: $sourceDescriptions.NAME#/paths/…` and
        // `workflowId: $sourceDescriptions.NAME.workflows.ID`, arazzo-runner's `operationPath: NAME#/paths/…`
        // (double-quoted: its fix stays so). An operation id that is both an operation's and the shorthand's
        // stays an error; Respect's `x-operation` is refused.
        "shorthand-operation-id": "RP1014", "shorthand-operation-path-respect": "RP1014",
        "shorthand-operation-path-arazzo-runner": "RP1014", "shorthand-workflow-id": "RP1014",
        "shorthand-ambiguous": "RP0105", "respect-x-operation": "RP1002",
        // Respect's `x-security`, read (valid: an inline API key scheme); an item with both `schemeName` and
        // `scheme`, or neither; a `schemeName` the description does not have (with the closest); a value the
        // scheme needs missing; a scheme type OpenAPI does not have, an HTTP scheme reqplan does not send; a client
        // certificate it cannot give, a second credential a request cannot carry, and an item on a step that runs
        // a workflow (warnings: the first item is sent, the called workflow's steps send their own).
        "respect-x-security": "", "respect-x-security-both": "RP0104", "respect-x-security-neither": "RP0103",
        "respect-x-security-unknown-scheme": "RP0811", "respect-x-security-missing-value": "RP0103",
        "respect-x-security-unknown-type": "RP0105", "respect-x-security-mutual-tls": "RP1002",
        "respect-x-security-not-sent": "RP1002", "respect-x-security-http-scheme": "RP1002",
        "respect-x-security-workflow-step": "RP1002",
        // What published documents get wrong that a runner can still read: warnings, so that every mistake shows
        // in one pass (the corpus test) and the document still runs. A string literal in double quotes (with its
        // fix), an output that is text, an output name a runtime expression cannot read, a 1.1 field in a 1.0
        // document, a description at a remote URL (its operations unchecked), and a request the description
        // refuses in a step that expects a 4xx (a negative test, sent as written).
        "double-quoted-literal": "RP1012", "output-not-an-expression": "RP1004", "output-name-invalid": "RP0106",
        "version-1-1-field-in-1-0": "RP1001", "remote-source": "RP1003", "negative-test": "RP0805",
        // Valid: `$workflows.X.outputs.Y` without `dependsOn` runs X first; a step that runs a workflow is judged
        // by its criteria (`$statusCode`: the last status the workflow received; `$outputs`: its outputs).
        "workflow-output-inferred": "", "workflow-step-criteria": "",
        // A runtime expression in text without the braces that embed it: sent as text, so a warning whose fix
        // adds them. Valid: `$workflows.X.inputs.Y` (the value the step that runs X gives it, or the input of
        // that name), and a step id with a space read in full (`$steps.Find Pets.outputs.pet_id`), not as text.
        "expression-in-text": "RP1004", "workflow-inputs": "",
    ]

    /// The cases whose one mistake is a warning: valid, but not with `--strict`.
    static let warnings: Set<String> = [
        "pointer-not-in-schema", "shorthand-operation-id", "shorthand-operation-path-respect",
        "shorthand-operation-path-arazzo-runner", "shorthand-workflow-id", "respect-x-security-mutual-tls",
        "respect-x-security-not-sent", "respect-x-security-workflow-step",
        "double-quoted-literal", "output-not-an-expression", "output-name-invalid", "version-1-1-field-in-1-0",
        "remote-source", "negative-test", "expression-in-text",
    ]

    @Test("validate prints the recorded diagnostics", arguments: cases)
    func golden(_ name: String) throws {
        let (report, actual) = Self.validate(
            Self.goldenDirectory.appendingPathComponent(name + Self.suffix), shownAs: "golden/\(name)\(Self.suffix)")
        let expectedFile = Self.goldenDirectory.appendingPathComponent(name + ".expected")
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try actual.write(to: expectedFile, atomically: true, encoding: .utf8)
            return
        }
        #expect(Self.codes[name] != nil, "\(name) has no code in `codes`")
        // Each case has its one mistake, reported once, at its place (the others' warnings aside).
        let mistakes = report.diagnostics.filter { $0.code.rawValue == Self.codes[name] }
        let isValid = Self.codes[name] == ""
        #expect(mistakes.count == (isValid ? 0 : 1), "\(actual)")
        #expect(report.errorCount == (isValid || Self.warnings.contains(name) ? 0 : 1), "\(actual)")
        #expect(report.isValid(strict: true) == (isValid && report.warningCount == 0), "\(actual)")
        #expect(report.diagnostics.allSatisfy { $0.range != nil }, "\(actual)")
        let expected = try String(contentsOf: expectedFile, encoding: .utf8)
        #expect(actual == expected, "golden/\(name): output differs from \(name).expected:\n\(actual)")
    }

    /// The OpenAPI Initiative's examples, and the errors validate finds in each (code and line).
    static let examples: [(String, [String])] = [
        // Names `./animals.yaml`, which the examples do not have.
        ("ExtendedParametersExample.arazzo.yaml", ["RP0601@8"]),
        // `PAR` is `Par` in the description. (Its token request's payload is JSON text: read as the JSON it is.)
        ("FAPI-PAR.arazzo.yaml", ["RP0802@102"]),
        // Its description is at a remote URL (a warning: its operations are not checked), and an
        // `operationPath` that stops at the path item, without the method.
        ("LoginAndRetrievePets.arazzo.yaml", ["RP0105@46"]),
        // The form omits the `client_id` the description requires.
        ("oauth.arazzo.yaml", ["RP0807@60"]),
        // The parameters are not named as the description names them (`pet_tags` is a warning, an unknown
        // query parameter). (Its steps that run a workflow judge `$statusCode`: the status of the last
        // response the workflow received.)
        ("pet-coupons.arazzo.yaml", ["RP0804@38", "RP0804@40"]),
        // A remote description (a warning), outputs read that the steps do not declare, and an output
        // read without `.outputs`: every mistake in one pass. With the description saved beside it
        // (`run/bnpl.arazzo.yaml`), its `goto` and `end` actions and `jsonpath` criteria are read, and the
        // description finds more: `bnplFindsWhatTheDescriptionSays`.
        ("bnpl-arazzo.yaml", ["RP1007@231", "RP1007@242", "RP1007@253", "RP1004@260"]),
    ]

    @Test("the OpenAPI Initiative's examples are read, and fail exactly where they are wrong", arguments: examples)
    func example(_ name: String, _ expected: [String]) {
        let (report, text) = Self.validate(
            Self.fixtures.appendingPathComponent("examples/" + name), shownAs: "examples/" + name)
        let found = report.diagnostics.filter { $0.severity == .error }.map {
            "\($0.code.rawValue)@\($0.range?.start.line ?? 0)"
        }
        #expect(found == expected, "\(text)")
    }

    @Test(
        "a warning's fix, applied to the file, leaves a document that validates without it",
        arguments: ["double-quoted-literal", "expression-in-text", "shorthand-operation-id"])
    func fixApplied(_ name: String) throws {
        let file = Self.goldenDirectory.appendingPathComponent(name + Self.suffix)
        let (report, _) = Self.validate(file, shownAs: "golden/\(name)\(Self.suffix)")
        let fixed = try #require(report.diagnostics.first { $0.fix != nil }, "\(name) has no fix")
        let range = try #require(fixed.range)
        var lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
        var line = Array(lines[range.start.line - 1].unicodeScalars)
        line.replaceSubrange(
            (range.start.column - 1)..<(range.end.column - 1),
            with: Array(try #require(fixed.fix).replacement.unicodeScalars))
        lines[range.start.line - 1] = String(String.UnicodeScalarView(line))
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("fixed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        // Beside a copy of the description it names (`../examples/…` from the golden folder).
        let examples = copy.appendingPathComponent("examples")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("examples"), to: examples)
        let golden = copy.appendingPathComponent("golden")
        try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
        let rewritten = golden.appendingPathComponent(name + Self.suffix)
        try lines.joined(separator: "\n").write(to: rewritten, atomically: true, encoding: .utf8)
        let (after, text) = Self.validate(rewritten, shownAs: "golden/\(name)\(Self.suffix)")
        #expect(!after.diagnostics.contains { $0.code == fixed.code && $0.severity == fixed.severity }, "\(text)")
        #expect(after.errorCount == 0, "\(text)")
    }

    @Test("the BNPL example, its description saved beside it, fails where it does not fit the description")
    func bnplFailsWhereItDoesNotFitItsDescription() {
        let (report, text) = Self.validate(
            Self.fixtures.appendingPathComponent("checked/bnpl.arazzo.yaml"), shownAs: "checked/bnpl.arazzo.yaml")
        let found = report.diagnostics.filter { $0.severity == .error }.map {
            "\($0.code.rawValue)@\($0.range?.start.line ?? 0)"
        }
        // A response field the description names otherwise (`productCodes`), a body without `totalAmount`, a
        // query parameter named otherwise (`AuthorizationToken`), outputs its steps do not declare, and a status
        // update whose property is `status`: every `goto`, `end` and `jsonpath` criterion is read. (`links.self`
        // at line 192 is no mistake: the step succeeds on 200 or 201, and the 201 response has it; arazzo-runner's
        // comparison found it reported against the 200 response only.)
        #expect(
            found == [
                "RP0808@136", "RP0807@198", "RP0805@230", "RP1007@234", "RP1007@245", "RP1007@256", "RP0807@259",
                "RP0807@259",
            ], "\(text)")
    }

    @Test("the corrected pet-coupons workflow validates")
    func correctedPetCouponsValidates() {
        let (report, text) = Self.validate(
            Self.fixtures.appendingPathComponent("run/pet-coupons.arazzo.yaml"), shownAs: "run/pet-coupons.arazzo.yaml")
        #expect(report.errorCount == 0, "\(text)")
    }
}
