import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing
import Yams

/// HOSTILE.md's classes, as they apply to `reqplan import`: values that would break the YAML written or turn
/// into expressions, depth and numbers in a HAR, escape sequences on their way to a terminal, files that are
/// not what they seem, an empty file.
@Suite struct ImportHostileTests {
    private func importing(_ format: ImportFormat, _ text: String) -> ImportResult {
        Importer.importPlan(format, from: [SourceFile(path: "input", text: text)])
    }

    private func isValid(_ text: String) -> Bool {
        let report = PlanValidator.validate(SourceFile(path: "plan.yaml", text: text))
        return PlanValidator.checkRunValues([report], inputs: [], environment: [:]).allSatisfy {
            $0.isValid(strict: true)
        }
    }

    /// The values a JSON body sends, read back from the plan by Yams (another YAML reader than reqplan's).
    private func jsonBody(_ text: String) throws -> [String: Any] {
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let steps = try #require(document["steps"] as? [String: Any])
        let step = try #require(steps.values.first as? [String: Any])
        let request = try #require(step["request"] as? [String: Any])
        return try #require(request["json"] as? [String: Any])
    }

    static let hostileValues = [
        "a: b", "# not a comment", "*alias", "&anchor", "!tag", "- item", "? key", "yes", "null", "~", "0x1F",
        "1e3", "'quoted'", "\"double\"", "line\nbreak", "tab\there", "nul\u{0}byte", "esc\u{1B}[2J", "bidi\u{202E}x",
        "sep\u{2028}x", "  spaced  ", "", "@at", "%percent", "`tick`", "{a}", "[b]", "| pipe", "> fold",
    ]

    @Test func everyHostileValueReadsBackAsItselfAndTheTemplateOpenerStaysText() throws {
        var object: [Value.Field] = []
        for (index, value) in Self.hostileValues.enumerated() { object.append(.init("k\(index)", .string(value))) }
        object.append(.init("expression", .string("${{ inputs.secret }}")))
        object.append(.init("key: with # marks", .string("v")))
        let body = Value.object(object).jsonText()
        let curl =
            "curl -H 'Content-Type: application/json' -d '\(body.replacingOccurrences(of: "'", with: "'\\''"))' https://h.example/x"
        let result = importing(.curl, curl)
        let text = try #require(result.text)
        #expect(isValid(text), "\(text)")
        let json = try jsonBody(text)
        for (index, value) in Self.hostileValues.enumerated() where !value.contains("\u{0}") {
            #expect(json["k\(index)"] as? String == value, "k\(index)")
        }
        // `${{` is written `${{ '${{' }}`: to YAML a string holding it, to reqplan the literal text.
        #expect(json["expression"] as? String == "${{ '${{' }} inputs.secret }}")
        #expect(json["key: with # marks"] as? String == "v")
    }

    /// Strings drawn from YAML's and the template's syntax, controls, separators and astral characters: each
    /// reads back from the plan as itself (by Yams), and the plan is valid. (No U+FEFF: Yams drops one that
    /// starts a scalar, written `\uFEFF`; reqplan's reader keeps it, and PyYAML too.)
    @Test func randomStringsOfSyntaxCharactersReadBackAsThemselves() throws {
        let pool = Array(
            ":#*&!-?|>'\"%@`{}[],$ \t\n\r\u{0}\u{7}\u{1B}\u{7F}\u{85}\u{A0}\u{2028}\u{202E}é🎲aZ09.~^"
                .unicodeScalars)
        var generator = SeededGenerator(seed: 42)
        var strings: [String] = []
        for _ in 0..<300 {
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                text.unicodeScalars.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
            }
            strings.append(text)
        }
        let body = Value.object(strings.enumerated().map { .init("k\($0.offset)", .string($0.element)) }).jsonText()
        let curl = "curl --json '\(body.replacingOccurrences(of: "'", with: "'\\''"))' https://h.example/x"
        let text = try #require(importing(.curl, curl).text)
        #expect(isValid(text))
        let json = try jsonBody(text)
        for (index, value) in strings.enumerated() where !value.contains("\u{0}") && !value.contains("${{") {
            #expect(json["k\(index)"] as? String == value, "k\(index): \(value.debugDescription)")
        }
    }

    @Test func nestedListsAndObjectsReadBackAsTheJSONSent() throws {
        let body = """
            {"a": [[1, [2, []]], {"b": [{"c": {}, "d": [{"e": null}]}]}, [], {}], "f": {"g": [true, false, "x"]}}
            """
        let text = try #require(importing(.curl, "curl --json '\(body)' https://h.example/x").text)
        #expect(isValid(text))
        let read = try JSONSerialization.data(withJSONObject: try jsonBody(text), options: [.sortedKeys])
        let sent = try JSONSerialization.data(
            withJSONObject: try JSONSerialization.jsonObject(with: Data(body.utf8)), options: [.sortedKeys])
        #expect(String(decoding: read, as: UTF8.self) == String(decoding: sent, as: UTF8.self), "\(text)")
    }

    @Test func aHARNestedDeeperThanTheReaderAllowsIsRefusedWithItsPlace() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let result = importing(.har, "{\"log\": {\"entries\": \(deep)}}")
        #expect(result.failed)
        #expect(result.diagnostics.first?.code == .importSourceMalformed)
        #expect(result.diagnostics.first?.range?.start.line == 1)
    }

    @Test func aDeepResponseBodyIsNoSourceAndNoCrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let har = Self.har([
            (
                "GET", "https://h.example/a", nil,
                Value.string(deep).jsonText()
            ),
            ("GET", "https://h.example/b", nil, "{}"),
        ])
        let text = try #require(importing(.har, har).text)
        #expect(isValid(text))
    }

    @Test func hugeNumbersKeepTheirDigitsAndNumbersNoDoubleHoldsStayText() throws {
        let body = "{\"big\": 18446744073709551615, \"small\": -99999999999999999999999, \"inf\": 1e400}"
        let text = try #require(importing(.har, Self.har([("POST", "https://h.example/a", body, "{}")])).text)
        #expect(text.contains("18446744073709551615") && text.contains("-99999999999999999999999"))
        #expect(text.contains("1e400"))
        #expect(isValid(text), "\(text)")
    }

    @Test func escapeSequencesInAWarningAreShownNotSentToTheTerminal() {
        let result = importing(.curl, "curl --\u{1B}]52;c;aGk=\u{07}evil \u{1B}[2J https://h.example/")
        let shown = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        #expect(!result.diagnostics.isEmpty)
        #expect(!shown.unicodeScalars.contains("\u{1B}") && !shown.unicodeScalars.contains("\u{07}"))
    }

    /// A name a collection gives (a header, a request) reaches a warning as text, even a color sequence
    /// (`ESC[8m` hides what follows), which the renderer's last net would keep as one of its own.
    @Test(arguments: [ImportFormat.postman, .har])
    func aColorSequenceInANameIsShownInTheWarning(_ format: ImportFormat) throws {
        let request =
            #"{"method": "GET", "url": "https://h.example/a", "header": [{"key": "X\u001b[8m", "value": "v"}], "#
            + #""headers": [{"name": "X\u001b[8m", "value": "v"}]}"#
        let text =
            format == .postman
            ? #"{"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"}, "item": [{"name": "a", "request": "#
                + request + "}]}"
            : request
        let result = importing(format, text)
        let shown = DiagnosticRenderer(colors: true, files: result.sources).text(result.diagnostics)
        #expect(shown.contains("X^[[8m"), "\(shown)")
        #expect(!VisibleText.keepingOwnEscapes(shown).contains("\u{1B}[8m"))
    }

    @Test func aControlCharacterInAHeaderLeavesTheHeaderOutWithAWarning() throws {
        let result = importing(.curl, "curl -H $'X-Evil: a\\r\\nInjected: 1' https://h.example/")
        let text = try #require(result.text)
        #expect(!text.contains("Injected: 1\n"))
        #expect(result.diagnostics.contains { $0.code == .importOptionNotConverted })
        #expect(isValid(text))
    }

    @Test func anEmptyFileHasNothingToImport() {
        for format in ImportFormat.allCases {
            let result = importing(format, "")
            #expect(result.failed)
            #expect(result.diagnostics.contains { $0.code == .importNothing || $0.code == .importSourceMalformed })
        }
    }

    @Test func aFileNamedInACommandIsNeverRead() throws {
        let text = try #require(
            importing(
                .curl, "curl -d @/etc/passwd https://h.example/a\ncurl -F f=@/proc/self/environ https://h.example/b"
            ).text)
        #expect(!text.contains("root:"))
        #expect(text.contains("/etc/passwd") && text.contains("body_file: \"${{ inputs.data_file }}\""))
        #expect(!text.contains("HOME="))
    }

    @Test func aFolderAndAMissingFileAreRefusedByTheOneReader() throws {
        let folder = TestFolders.unique("import-hostile")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard case .failure(let diagnostic) = Importer.readSource(atPath: folder.path) else {
            Issue.record("a folder was read")
            return
        }
        #expect(diagnostic.code == .unreadableFile)
        let link = folder.appendingPathComponent("link.har")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/nonexistent/x.har")
        guard case .failure = Importer.readSource(atPath: link.path) else {
            Issue.record("a dangling link was read")
            return
        }
    }

    @Test func shellSubstitutionsAreRefusedButVariablesBecomeInputs() throws {
        let refused = importing(.curl, "curl https://h.example/$(whoami)")
        #expect(refused.failed && refused.diagnostics.first?.code == .importShellConstruct)
        let text = try #require(importing(.curl, "curl -H \"X-Api-Key: $KEY\" \"https://h.example/${ID}\"").text)
        #expect(text.contains("env: KEY") && text.contains("${{ inputs.id }}"))
        #expect(isValid(text), "\(text)")
    }

    @Test func aShellVariableNamedBaseURLLeavesTheOriginsInputAnotherName() throws {
        let text = try #require(importing(.curl, "curl \"$BASE_URL/a\"\ncurl https://h.example/b").text)
        #expect(text.contains("base_url: \"${{ inputs.base_url_2 }}\""), "\(text)")
        #expect(isValid(text), "\(text)")
    }

    @Test func urlGlobbingIsRefusedUnlessGloboff() throws {
        let refused = importing(.curl, "curl 'https://h.example/{a,b}/[1-3]'")
        #expect(refused.failed && refused.diagnostics.first?.code == .importURLGlob)
        #expect(importing(.curl, "curl -g 'https://h.example/a[1]'").text != nil)
    }

    /// A HAR of `entries`: method, URL, request JSON body (or none), response JSON text.
    static func har(_ entries: [(String, String, String?, String)]) -> String {
        let list = entries.map { method, url, body, response in
            var request: [Value.Field] = [
                .init("method", .string(method)), .init("url", .string(url)), .init("headers", .list([])),
            ]
            if let body {
                request.append(
                    .init(
                        "postData",
                        .object([.init("mimeType", .string("application/json")), .init("text", .string(body))])))
            }
            return Value.object([
                .init("request", .object(request)),
                .init(
                    "response",
                    .object([
                        .init("status", .int(200)), .init("headers", .list([])),
                        .init(
                            "content",
                            .object([.init("mimeType", .string("application/json")), .init("text", .string(response))])),
                    ])),
            ])
        }
        return Value.object([.init("log", .object([.init("entries", .list(list))]))]).jsonText()
    }
}
