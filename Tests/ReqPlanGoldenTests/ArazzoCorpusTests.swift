import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// Arazzo documents as people publish them: the 99 of `Tests/Fixtures/arazzo/real/` (a dozen public
/// repositories, 1.0.0 to 1.1.0, each with its descriptions and licence), held to `expected.yaml`, their
/// ground truth judged against the specification's text rather than against what reqplan accepts.
///
/// - A document the spec makes valid, and whose requests agree with its API descriptions, validates
///   without an error: nothing valid is refused.
/// - Every error is within a line of a real mistake, a disagreement with the description, or something
///   reqplan does not run (listed, with why): no false error.
/// - Every mistake has a diagnostic, error or warning, within a line of it: found in one pass, but for
///   the few `notFoundYet` lists.
@Suite("The Arazzo corpus: published documents against their ground truth")
struct ArazzoCorpusTests {
    static let folder = ArazzoGoldenTests.fixtures.appendingPathComponent("real")

    /// One document of `expected.yaml`.
    struct Entry: Sendable, CustomTestStringConvertible {
        var path: String
        var clean: Bool
        /// The lines of its mistakes.
        var mistakes: [Int]
        /// The lines where it disagrees with its API descriptions.
        var apiMistakes: [Int]
        /// The lines of what reqplan does not run or cannot read here.
        var unsupported: [Int]
        var testDescription: String { path }
    }

    /// Mistakes reqplan does not report yet, by `path:line`, each with why.
    static let notFoundYet: [String: String] = [
        // The step is refused for Respect's `x-operation` (RP1002 at line 13), so its criteria are not read.
        "redocly-respect/tests/e2e/respect/free-apis/free.arazzo.yaml:20": "criteria of a refused step",
        // Reported, six lines below, as Respect's `x-operation` (RP1002).
        "redocly-respect/packages/respect-core/src/modules/__tests__/config-parser/auto.yaml:16": "reported at 22",
        // An output name with dots is read as the output and a path into it, as Respect reads it.
        "redocly-respect/tests/e2e/respect/outputs-access-syntax-variations/outputs-access-syntax-variations.arazzo.yaml:72":
            "dots read into the output",
        // `$steps.previous.outputs` (no name) is read as the object of all the step's outputs.
        "oai-arazzo-specification/tests/schema/pass/payload-replacement-using-selector.arazzo.yaml:19":
            "all outputs read as an object",
        // Its second source is AsyncAPI, refused where it is declared, so the plain operationId is unambiguous.
        "php-arazzo/packages/core/tests/fixtures/parser/arazzo-1.1-cross-protocol-saga.yaml:51":
            "the other source is refused",
    ]

    static let entries: [Entry] = {
        let path = folder.appendingPathComponent("expected.yaml").path
        guard case .success(let document) = DataDocument.read(atPath: path, what: "corpus", limits: ParseLimits()),
            case .success(let value) = document.value(), case .list(let documents)? = value["documents"]
        else { return [] }
        func lines(_ key: String, of entry: Value) -> [Int] {
            guard case .list(let items)? = entry[key] else { return [] }
            return items.compactMap { item -> Int? in
                guard case .string(let text) = item, text.hasPrefix("line ") else { return nil }
                return Int(text.dropFirst(5).prefix { $0.isNumber })
            }
        }
        return documents.compactMap { entry in
            guard case .string(let path)? = entry["path"] else { return nil }
            return Entry(
                path: path, clean: entry["clean"] == .bool(true), mistakes: lines("mistakes", of: entry),
                apiMistakes: lines("api_mistakes", of: entry), unsupported: lines("unsupported", of: entry))
        }
    }()

    @Test("the corpus is there: 99 documents, over a third of them valid")
    func corpusIsComplete() {
        #expect(Self.entries.count == 99)
        #expect(Self.entries.filter { $0.clean && $0.apiMistakes.isEmpty }.count >= 34)
        #expect(Self.entries.reduce(0) { $0 + $1.mistakes.count } >= 400)
    }

    @Test("no false error, nothing valid refused, every mistake found", arguments: entries)
    func document(_ entry: Entry) {
        let file = Self.folder.appendingPathComponent(entry.path)
        let report = PlanValidator.validate(
            fileAt: file.path, displayPath: entry.path, allowFilesOutside: true, library: ArazzoGoldenTests.library())
        let own = report.diagnostics.filter { $0.file == entry.path && $0.severity != .note }
        func near(_ line: Int?, _ lines: [Int]) -> Bool {
            guard let line else { return false }
            return lines.contains { abs($0 - line) <= 1 }
        }
        let errors = own.filter { $0.severity == .error }
        if entry.clean && entry.apiMistakes.isEmpty {
            #expect(
                errors.isEmpty,
                "a valid document is refused: \(errors.map { "\($0.code)@\($0.range?.start.line ?? 0) \($0.message)" })"
            )
        }
        let explained = entry.mistakes + entry.apiMistakes + entry.unsupported
        for error in errors where !near(error.range?.start.line, explained) {
            Issue.record("a false error: \(error.code)@\(error.range?.start.line ?? 0) \(error.message)")
        }
        let reported = own.compactMap { $0.range?.start.line }
        for line in entry.mistakes {
            let listed = Self.notFoundYet["\(entry.path):\(line)"] != nil
            if near(line, reported) {
                #expect(!listed, "the mistake at line \(line) is found now: take it off `notFoundYet`")
            } else {
                #expect(listed, "the mistake at line \(line) is not reported")
            }
        }
    }

    @Test("what is listed as not found yet names mistakes of the corpus")
    func notFoundYetNamesMistakes() {
        for key in Self.notFoundYet.keys {
            let path = String(key[..<(key.lastIndex(of: ":") ?? key.endIndex)])
            let line = Int(key[(key.index(after: key.lastIndex(of: ":") ?? key.startIndex))...])
            #expect(
                Self.entries.contains { $0.path == path && line.map($0.mistakes.contains) == true },
                "\(key) is no mistake of the corpus")
        }
    }
}
