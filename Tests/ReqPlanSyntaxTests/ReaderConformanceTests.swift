import Foundation
import ReqPlanTestSupport
import Testing

@testable import ReqPlanSyntax

/// The readers against two public test suites (`Tests/Fixtures/conformance`, NOTICE.md says where from): every
/// case of the YAML Test Suite's data release, and every `y_` case of JSONTestSuite, read from its file as a
/// user's files are read.
///
/// - `plan`: a plan's reader (`PlanParser.readFile`, `YAMLLoader.composePlan`), its value read as the plan reads
///   an input's default (`PlanReader.literal`: merge keys applied, keys must be names).
/// - `data`: every other file's (`DataDocument.read`, then `value()`): inputs files and environments, API
///   descriptions, Arazzo documents.
/// - `body`, JSONTestSuite only: a JSON response body's (`Value.parseJSON`).
///
/// A valid case must be read, and where the suite gives its value (`in.json`, or the JSON case itself read by
/// `body`), to the same value (numbers by value, strings by scalars, mappings in any order); an error case
/// must be refused with a diagnostic placed in the file (a line it has, a column of that line). What does not
/// (the product's limits, libyaml's, bugs not yet fixed) is listed in `expected-outcomes.txt`, one line per
/// case with a reason: a case that changes outcome fails the test until the file says so.
/// `RECORD_CONFORMANCE=1` (or `RECORD_GOLDEN=1`) rewrites the file, keeping the reasons of the cases still
/// listed; the recording run fails, as golden files' do.
@Suite struct ReaderConformanceTests {
    /// `Tests/Fixtures/conformance`.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/conformance")
    static let expectationsFile = folder.appendingPathComponent("expected-outcomes.txt")
    static let limits = ParseLimits()

    // MARK: Cases

    /// One case: a file to read and what reading it should give.
    struct Case: Sendable {
        enum Expected: Sendable {
            /// An error case: refused, located.
            case refusal
            /// A valid case whose value the suite does not give (`in.yaml` without `in.json`).
            case acceptance
            /// A valid case and its value, as JSON text (`in.json`; empty: no document; several values: a stream).
            case json(String)
            /// A valid case and its value (a JSON case, as a body's reader reads it).
            case value(Value)
        }

        /// `229Q`, `SM9W/01`, `y_array_empty`.
        var id: String
        /// The file read.
        var file: URL
        var expected: Expected
    }

    /// The YAML Test Suite's cases: each folder with an `in.yaml`, sorted.
    static let yamlCases: [Case] = {
        let base = folder.appendingPathComponent("yaml-test-suite")
        let files = FileManager.default.enumerator(atPath: base.path)
        var cases: [Case] = []
        while let path = files?.nextObject() as? String {
            guard path.hasSuffix("/in.yaml") else { continue }
            let id = String(path.dropLast("/in.yaml".count))
            let caseFolder = base.appendingPathComponent(id)
            let expected: Case.Expected
            if FileManager.default.fileExists(atPath: caseFolder.appendingPathComponent("error").path) {
                expected = .refusal
            } else if let json = try? String(
                contentsOf: caseFolder.appendingPathComponent("in.json"), encoding: .utf8)
            {
                expected = .json(json)
            } else {
                expected = .acceptance
            }
            cases.append(
                Case(id: id, file: caseFolder.appendingPathComponent("in.yaml"), expected: expected))
        }
        return cases.sorted { $0.id < $1.id }
    }()

    /// JSONTestSuite's `y_` cases, sorted: each is its own value.
    static let jsonCases: [Case] = {
        let base = folder.appendingPathComponent("JSONTestSuite")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        return names.filter { $0.hasPrefix("y_") && $0.hasSuffix(".json") }.sorted().map { name in
            Case(
                id: String(name.dropLast(".json".count)), file: base.appendingPathComponent(name),
                expected: .acceptance)
        }
    }()

    // MARK: Reading

    /// What a reader made of a case's file.
    enum Reading {
        /// Read; `nil` when the file holds no document.
        case read(Value?)
        /// Refused; `placed`: at a place in the file (a line it has, a column of that line or just past its end).
        case refused(Diagnostic, placed: Bool)
    }

    /// The readers a user's files meet (the suite's doc comment says which is which).
    enum Reader: String, Sendable {
        case plan, data, body
    }

    static func read(_ file: URL, by reader: Reader) -> Reading {
        switch reading(file, by: reader) {
        case .success(let value): return .read(value)
        case .failure(let diagnostic):
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            return .refused(diagnostic, placed: diagnostic.range.map { isPlace($0.start, in: text) } ?? false)
        }
    }

    /// Whether `location` is in `text`: on a line it has, at a character of that line or just past its end.
    static func isPlace(_ location: ReqPlanSyntax.SourceLocation, in text: String) -> Bool {
        guard let line = SourceFile(path: "", text: text).line(location.line) else { return false }
        return (1...line.unicodeScalars.count + 1).contains(location.column)
    }

    private static func reading(_ file: URL, by reader: Reader) -> Result<Value?, Diagnostic> {
        switch reader {
        case .plan:
            let source: SourceFile
            switch PlanParser.readFile(atPath: file.path, limits: limits) {
            case .failure(let failure):
                return .failure(failure.result.diagnostics.first ?? .error(.unreadableFile, "unread", at: nil))
            case .success(let text): source = text
            }
            switch YAMLLoader.composePlan(source, limits: limits) {
            case .failure(let diagnostic): return .failure(diagnostic)
            case .success(nil): return .success(nil)
            case .success(let node?):
                var planReader = PlanReader(source: source, limits: limits)
                let value = planReader.literal(node, "the value")
                if let problem = planReader.diagnostics.diagnostics.first { return .failure(problem) }
                return .success(value?.value ?? .null)
            }
        case .data:
            switch DataDocument.read(atPath: file.path, what: "data file", limits: limits) {
            case .failure(let failure): return .failure(failure.diagnostic)
            case .success(let document):
                guard document.root != nil else { return .success(nil) }
                switch document.value() {
                case .failure(let diagnostic): return .failure(diagnostic)
                case .success(let value): return .success(value)
                }
            }
        case .body:
            guard let data = try? Data(contentsOf: file) else {
                return .failure(.error(.unreadableFile, "unreadable", at: nil))
            }
            do {
                return .success(try Value.parseJSON(bytes: Array(data)))
            } catch {
                // A body has no source excerpt: its place is a byte offset, which locates it.
                return .failure(.error(.yamlSyntax, error.description, at: SourceRange(at: .init(line: 1, column: 1))))
            }
        }
    }

    /// How a reader did on a case, when not as the suite says: `nil` when it did.
    static func deviation(of reading: Reading, from expected: Case.Expected) -> Deviation? {
        switch (reading, expected) {
        case (.refused(let diagnostic, let placed), .refusal):
            return placed ? nil : Deviation("unlocated \(diagnostic.code)", diagnostic.message)
        case (.read, .refusal):
            return Deviation("accepted", "read an invalid document")
        case (.refused(let diagnostic, _), _):
            return Deviation("refused \(diagnostic.code)", diagnostic.message)
        case (.read, .acceptance):
            return nil
        case (.read(let value), .value(let expected)):
            return compare(value, expected)
        case (.read(let value), .json(let json)):
            if json.allSatisfy(\.isWhitespace) { return compare(value, nil) }
            guard let expected = try? Value.parseJSON(json) else {
                return Deviation("differs", "read one document of a stream of several")
            }
            return compare(value, expected)
        }
    }

    /// `value` against the suite's: `nil` for no document.
    static func compare(_ value: Value?, _ expected: Value?) -> Deviation? {
        switch (value, expected) {
        case (nil, nil): return nil
        case (let value?, let expected?):
            return difference(value, expected, at: "$").map { Deviation("differs", $0) }
        default:
            return Deviation("differs", value == nil ? "read no document" : "read a document of an empty stream")
        }
    }

    /// A reader's outcome that is not what the suite says: `outcome` is compared with the file, `detail` only
    /// shown.
    struct Deviation {
        var outcome: String
        var detail: String
        init(_ outcome: String, _ detail: String) {
            self.outcome = outcome
            self.detail = detail
        }
    }

    /// Where `value` and `expected` first differ; `nil` if nowhere. Numbers compare by value, strings by their
    /// Unicode scalars (Swift's `==` would take `é` and `e\u{301}` for one), mappings in any order.
    static func difference(_ value: Value, _ expected: Value, at path: String) -> String? {
        switch (value, expected) {
        case (.string(let a), .string(let b)):
            return a.unicodeScalars.elementsEqual(b.unicodeScalars) ? nil : "\(path): \(show(value)), not \(show(b))"
        case (.list(let a), .list(let b)):
            guard a.count == b.count else { return "\(path): \(a.count) items, not \(b.count)" }
            for (index, (item, other)) in zip(a, b).enumerated() {
                if let found = difference(item, other, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return "\(path): \(a.count) keys, not \(b.count)" }
            for field in a {
                let name = "\(path).\(show(.string(field.key)))"
                guard let other = b.first(where: { $0.key.unicodeScalars.elementsEqual(field.key.unicodeScalars) })
                else { return "\(name): a key not expected" }
                if let found = difference(field.value, other.value, at: name) { return found }
            }
            return nil
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double), (.largeInt, _), (_, .largeInt):
            return value.languageEquals(expected) ? nil : "\(path): \(show(value)), not \(show(expected))"
        default:
            return value == expected ? nil : "\(path): \(show(value)), not \(show(expected))"
        }
    }

    /// A value in a line of the file: JSON, cut short.
    static func show(_ value: Value) -> String {
        let text = value.jsonText()
        return text.unicodeScalars.count > 40
            ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(39))) + "…" : text
    }

    static func show(_ string: String) -> String { show(.string(string)) }

    // MARK: The expectations file

    /// One case's line: its readers' outcomes (what is compared) and a reason (kept as written).
    struct Line {
        var id: String
        /// `plan: refused RP0006  data: refused RP0006`.
        var outcomes: String
        var reason: String
    }

    /// What every case gives now, as the file's lines (cases as the suite says omitted) and its summary.
    static func currentOutcomes() -> (lines: [Line], summary: [String]) {
        var lines: [Line] = []
        var summary: [String] = []
        for (isJSON, cases, readers) in [
            (false, yamlCases, [Reader.plan, .data]), (true, jsonCases, [.plan, .data, .body]),
        ] {
            var results: [Reader: [(Case, Reading, Deviation?)]] = [:]
            for testCase in cases {
                var outcomes: [String] = []
                var details: [String] = []
                var deviates = false
                for reader in readers {
                    var expected = testCase.expected
                    // A JSON case's value is what a body's reader reads, when it reads it.
                    if isJSON, reader != .body, case .read(let body?) = read(testCase.file, by: .body) {
                        expected = .value(body)
                    }
                    let reading = read(testCase.file, by: reader)
                    let deviation = deviation(of: reading, from: expected)
                    results[reader, default: []].append((testCase, reading, deviation))
                    outcomes.append("\(reader): \(deviation?.outcome ?? "ok")")
                    if let deviation {
                        deviates = true
                        details.append("\(reader): \(deviation.detail)")
                    }
                }
                if deviates {
                    lines.append(
                        Line(
                            id: testCase.id, outcomes: outcomes.joined(separator: "  "),
                            reason: "to explain: " + details.joined(separator: "; ")))
                }
            }
            for reader in readers {
                let all = results[reader] ?? []
                if !isJSON {
                    summary.append(yamlSummary(reader, all))
                } else {
                    let passed = all.filter { $0.2 == nil }.count
                    summary.append("JSONTestSuite y_, \(reader) reader: \(passed) of \(all.count) read as written")
                }
            }
        }
        return (lines, summary)
    }

    /// "plan reader: N of M valid cases read, of which K of L with a value compose to it; E of F error
    /// cases refused".
    static func yamlSummary(_ reader: Reader, _ results: [(Case, Reading, Deviation?)]) -> String {
        func isRead(_ reading: Reading) -> Bool {
            if case .read = reading { return true }
            return false
        }
        let valid = results.filter { if case .refusal = $0.0.expected { false } else { true } }
        let errors = results.filter { if case .refusal = $0.0.expected { true } else { false } }
        let read = valid.filter { isRead($0.1) }
        let withValue = read.filter { if case .json = $0.0.expected { true } else { false } }
        let same = withValue.filter { $0.2 == nil }
        let refused = errors.filter { $0.2 == nil }
        return "YAML Test Suite, \(reader) reader: \(read.count) of \(valid.count) valid cases read, "
            + "of which \(same.count) of the \(withValue.count) with an in.json to the same value; "
            + "\(refused.count) of \(errors.count) error cases refused, located"
    }

    static let header = """
        # What the readers make of the conformance fixtures (NOTICE.md), where it is not what the suite says:
        # one line per case, `<case>  <reader>: <outcome> ...  | <reason>`. Outcomes: ok; refused RPnnnn (a
        # valid case refused); differs (read to another value than the suite's in.json); accepted (an error
        # case read); unlocated RPnnnn (an error case refused with no place in the file). Readers: plan (a
        # plan's), data (inputs, environments, API descriptions, Arazzo documents), body (a JSON response's).
        # Reasons: `deliberate:` a limit of reqplan's; `libyaml:` the YAML 1.1 parser reqplan reads with;
        # `bug:` to fix. ReaderConformanceTests compares the outcomes; RECORD_CONFORMANCE=1 rewrites this
        # file, keeping the reasons. docs/conformance.md explains the groups.
        """

    /// The file's text for `lines` and `summary`.
    static func render(_ lines: [Line], summary: [String]) -> String {
        let width = (lines.map(\.id.count).max() ?? 0) + 2
        let outcomeWidth = (lines.map(\.outcomes.count).max() ?? 0) + 2
        var text = header + "\n#\n" + summary.map { "# \($0)\n" }.joined() + "\n"
        for line in lines {
            let id = line.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let outcomes = line.outcomes.padding(toLength: outcomeWidth, withPad: " ", startingAt: 0)
            text += "\(id)\(outcomes)| \(line.reason)\n"
        }
        return text
    }

    /// The lines of the file's text: `nil` for a comment or a blank line.
    static func parse(_ text: String) -> [Line] {
        text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let bar = line.firstRange(of: "| ") else { return nil }
            let fields = line[..<bar.lowerBound].split(separator: " ", maxSplits: 1)
            guard let id = fields.first else { return nil }
            let outcomes = fields.dropFirst().first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
            return Line(id: String(id), outcomes: outcomes, reason: String(line[bar.upperBound...]))
        }
    }

    static var isRecording: Bool {
        ProcessInfo.processInfo.environment["RECORD_CONFORMANCE"] == "1" || Golden.isRecording
    }

    // MARK: Tests

    @Test func theFixturesHoldEveryCase() {
        // The data release of 2022-01-17: 402 cases (308 valid, 94 errors); JSONTestSuite's 95 `y_` cases.
        #expect(Self.yamlCases.count == 402)
        #expect(Self.yamlCases.filter { if case .refusal = $0.expected { true } else { false } }.count == 94)
        #expect(Self.jsonCases.count == 95)
    }

    /// docs/conformance.md quotes the expectations file's counts as they are, and grammar.md §2.4 each of their
    /// figures (`229 of 308`); the expectations file is kept true by the test above.
    @Test func theDocumentsQuoteTheCounts() throws {
        let root = Self.folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let conformance = try String(contentsOf: root.appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        let grammar = try String(contentsOf: root.appendingPathComponent("grammar.md"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        let summary = try String(contentsOf: Self.expectationsFile, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("# YAML Test Suite, ") || $0.hasPrefix("# JSONTestSuite ") }.map { $0.dropFirst(2) }
        #expect(summary.count == 5)
        // (Each found first: `#expect` would print the whole document with a failure.)
        for line in summary {
            let quoted = conformance.contains(line)
            #expect(quoted, "docs/conformance.md does not quote: \(line)")
            for figure in line.matches(of: /[0-9]+ of (the )?[0-9]+/) {
                let given = grammar.contains(figure.output.0)
                #expect(given, "grammar.md §2.4 does not give \(figure.output.0)")
            }
        }
    }

    @Test func everyCaseIsReadAsTheExpectationsFileSays() throws {
        let (lines, summary) = Self.currentOutcomes()
        let existing = (try? String(contentsOf: Self.expectationsFile, encoding: .utf8)).map(Self.parse) ?? []
        let reasons = Dictionary(existing.map { ($0.id, $0.reason) }, uniquingKeysWith: { first, _ in first })
        let kept = lines.map { line in
            Line(id: line.id, outcomes: line.outcomes, reason: reasons[line.id] ?? line.reason)
        }
        if Self.isRecording {
            try Golden.check(Self.render(kept, summary: summary), against: Self.expectationsFile, recording: true)
            return
        }
        var problems: [String] = []
        let listed = Dictionary(existing.map { ($0.id, $0.outcomes) }, uniquingKeysWith: { first, _ in first })
        for line in lines where listed[line.id] != line.outcomes {
            let listing = listed[line.id].map { "listed as \($0)" } ?? "not listed"
            problems.append("\(line.id): \(line.outcomes), \(listing) (\(line.reason))")
        }
        let current = Set(lines.map(\.id))
        for line in existing where !current.contains(line.id) {
            problems.append("\(line.id): now as the suite says, listed as \(line.outcomes)")
        }
        for line in existing where line.reason.hasPrefix("to explain:") {
            problems.append("\(line.id): give a reason, not \(line.reason)")
        }
        guard problems.isEmpty else {
            let list = problems.joined(separator: "\n")
            Issue.record(
                "\(problems.count) cases not as expected-outcomes.txt says (RECORD_CONFORMANCE=1 rewrites it):\n\(list)"
            )
            return
        }
        // The whole file too, so the counts its summary gives (and the documents quote) stay true.
        try Golden.check(Self.render(kept, summary: summary), against: Self.expectationsFile, recording: false)
    }
}
