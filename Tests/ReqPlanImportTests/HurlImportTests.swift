import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// `reqplan import hurl`: captures as data flow, asserts as `expect:`, and HOSTILE.md's classes as they apply
/// to a `.hurl` file (escape sequences, huge numbers, many entries, deep JSON).
@Suite struct HurlImportTests {
    private func importing(_ text: String) -> ImportResult {
        Importer.importPlan(.hurl, from: [SourceFile(path: "t.hurl", text: text)])
    }

    private func isValid(_ text: String) -> Bool {
        let report = PlanValidator.validate(SourceFile(path: "plan.yaml", text: text))
        return PlanValidator.checkRunValues([report], inputs: [], environment: [:]).allSatisfy {
            $0.isValid(strict: true)
        }
    }

    /// Found by the `import` fuzz target: `[BasicAuth]` beside an `Authorization` header wrote both `auth` and
    /// the header, which a plan refuses (RP0104).
    @Test func basicAuthBesideAnAuthorizationHeaderIsWrittenOnce() throws {
        let result = importing(
            """
            GET http://localhost:8000/a
            Authorization: Bearer abc
            [BasicAuth]
            bob: secret
            """)
        let text = try #require(result.text)
        #expect(isValid(text), "\(text)")
        #expect(text.contains("      auth:"), "\(text)")
        #expect(!text.contains("Authorization:"), "\(text)")
    }

    /// Found by the `import` fuzz target: a query parameter named by 8 KB of text was written as a YAML key,
    /// which libyaml reads only up to 1,024 characters, and the plan did not read back (RP0002).
    @Test func aNameLongerThanAYAMLKeyMayBeIsLeftOutAndAJSONBodyWithOneIsSentAsText() throws {
        let long = String(repeating: "k\\\"", count: 700)
        let result = importing(
            """
            POST http://localhost:8000/a?\(long)=1&short=2
            {"\(long)": 1, "ok": 2}
            """)
        let text = try #require(result.text)
        #expect(isValid(text), "\(text.prefix(3_000))")
        #expect(text.contains("short: \"2\""), "\(text.prefix(3_000))")
        #expect(text.contains("      body: \"{"), "\(text.prefix(3_000))")
        #expect(
            result.diagnostics.contains {
                $0.code == .importOptionNotConverted && $0.message.hasPrefix("a query parameter of step")
            })
    }

    /// Found by the `import` fuzz target: a JSONPath that is no body path of a plan (`$.errors[]id.0`) was
    /// written as one, and the plan did not read back (RP0201).
    @Test func aJSONPathThatIsNoBodyPathIsNotConverted() throws {
        let result = importing(
            """
            GET http://localhost:8000/a
            HTTP 200
            [Asserts]
            jsonpath "$.errors[]id.0" == "error1"
            jsonpath "$.errors[0].id" == "error2"
            jsonpath "$['a-b'][-1]" == 3
            """)
        let text = try #require(result.text)
        #expect(isValid(text), "\(text)")
        #expect(!text.contains("\"errors[]id.0\":"), "\(text)")
        #expect(text.contains("# not converted: the assert `jsonpath \"$.errors[]id.0\" == \"error1\"`"))
        #expect(text.contains("errors[0].id"), "\(text)")
        #expect(text.contains("['a-b'][-1]"), "\(text)")
    }

    /// Found by the `import` fuzz target: a method Hurl sends and a plan does not (`PROPFIND`, a misspelling)
    /// was written, and the plan did not validate (RP0110).
    @Test func aMethodAPlanDoesNotSendLeavesItsRequestOutWithAWarning() throws {
        let result = importing(
            """
            DELMTE http://localhost:8000/a
            HTTP 204

            GET http://localhost:8000/b
            """)
        let text = try #require(result.text)
        #expect(isValid(text), "\(text)")
        #expect(!text.contains("DELMTE\n") && text.contains("url: /b"), "\(text)")
        #expect(
            result.diagnostics.contains {
                $0.code == .importOptionNotConverted && $0.message.contains("`DELMTE` is not one a plan sends")
                    && $0.range?.start.line == 1
            })
    }

    /// Found by the `import` fuzz target: a check of a header no header can be named (`}`) was written into
    /// `expect.headers`, and the plan did not read back (RP0106).
    @Test func aCheckOfAHeaderNoHeaderCanBeNamedIsLeftOutWithAWarning() throws {
        let result = importing(
            """
            GET http://localhost:8000/a
            HTTP 200
            }: x
            X-Ok: yes
            """)
        let text = try #require(result.text)
        #expect(isValid(text), "\(text)")
        #expect(text.contains("X-Ok: \"yes\""), "\(text)")
        #expect(!text.contains("\"}\":"))
        #expect(text.contains("# not converted: the check of the header `}` is not a valid header name"))
        #expect(result.diagnostics.contains { $0.code == .importSettingNotConverted && $0.message.contains("`}`") })
    }

    @Test func aCaptureIsReadByLaterRequestsAndAssertsBecomeExpect() throws {
        let plan = try #require(
            importing(
                """
                POST http://h.example/items
                {"name": "a"}
                HTTP 201
                [Captures]
                id: jsonpath "$.items[0]['id']"
                where: header "Location"
                [Asserts]
                jsonpath "$.items" count == 1
                jsonpath "$.name" == "a"
                jsonpath "$.missing" not exists
                header "Content-Type" startsWith "application/json"

                GET http://h.example/items/{{id}}
                X-From: {{where}}
                HTTP 200
                """
            ).text)
        #expect(plan.contains("url: \"/items/${{ steps.post_items.body.items[0]['id'] }}\""), "\(plan)")
        #expect(plan.contains("X-From: \"${{ steps.post_items.headers.location }}\""))
        #expect(plan.contains("status: 201") && plan.contains("length: 1") && plan.contains("exists: false"))
        #expect(plan.contains("matches: \"^application/json\""))
        #expect(isValid(plan), "\(plan)")
    }

    @Test func escapeSequencesHugeNumbersAndManyEntriesStayInert() throws {
        var text = "GET http://h.example/x\u{1B}[2J\nX-Evil: \u{1B}]0;owned\u{07}\nHTTP 200\n[Asserts]\n"
        text += "jsonpath \"$.n\" == 99999999999999999999999\nbogus \u{1B}[8m\n\n"
        text +=
            "POST http://h.example/n\n{\"id\": 18446744073709551615, \"deep\": "
            + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}\nHTTP 200\n\n"
        for index in 0..<2000 { text += "GET http://h.example/items/\(index)\nHTTP 200\n\n" }
        let result = importing(text)
        let plan = try #require(result.text)
        let shown = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        #expect(!shown.contains("\u{1B}") && !plan.contains("\u{1B}"), "\(shown)")
        #expect(plan.contains("\"n\": 99999999999999999999999") && plan.contains("id: 18446744073709551615"))
        #expect(isValid(plan))
    }
}
