import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// `reqplan import postman`: variables and environments, inherited auth, scripts kept as comments, variables a
/// test script sets read from the step, and HOSTILE.md's classes as they apply to a collection.
@Suite struct PostmanImportTests {
    private func importing(_ texts: [(String, String)]) -> ImportResult {
        Importer.importPlan(.postman, from: texts.map { SourceFile(path: $0.0, text: $0.1) })
    }

    private func isValid(_ text: String) -> Bool {
        let report = PlanValidator.validate(SourceFile(path: "plan.yaml", text: text))
        return PlanValidator.checkRunValues([report], inputs: [], environment: [:]).allSatisfy {
            $0.isValid(strict: true)
        }
    }

    private func collection(_ items: String, extra: String = "") -> String {
        """
        {"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         \(extra) "item": [\(items)]}
        """
    }

    @Test func aVersion1CollectionIsRefusedAtItsRequests() {
        let result = importing([
            ("v1.json", "{\n  \"id\": \"x\",\n  \"name\": \"old\",\n  \"order\": [],\n  \"requests\": []\n}")
        ])
        #expect(result.failed)
        let error = result.diagnostics.first { $0.severity == .error }
        #expect(error?.code == .importSourceMalformed)
        #expect(error?.range?.start.line == 5)
        #expect(error?.hint?.contains("v2.1") == true)
    }

    @Test func theEnvironmentWinsOverTheCollectionAndItsSecretsHaveNoDefault() throws {
        let text = collection(
            """
            {"name": "get", "request": {"method": "GET", "url": "{{host}}/get?q={{term}}",
              "header": [{"key": "X-Key", "value": "{{apiKey}}"}, {"key": "X-Off", "value": "1", "disabled": true}]}}
            """,
            extra: """
                "variable": [{"key": "host", "value": "http://collection.example"}, {"key": "term", "value": "cats"}],
                """)
        let environment = """
            {"name": "staging", "values": [{"key": "host", "value": "http://staging.example", "enabled": true},
              {"key": "apiKey", "value": "k3y9-very-secret", "type": "secret", "enabled": true}]}
            """
        let result = importing([("c.json", text), ("env.json", environment)])
        let plan = try #require(result.text)
        #expect(plan.contains("default: \"http://staging.example\""))
        #expect(!plan.contains("k3y9-very-secret") && !plan.contains("X-Off"))
        #expect(plan.contains("X-Key: \"${{ inputs.apikey }}\""))
        #expect(isValid(plan), "\(plan)")
    }

    @Test func aVariableATestScriptSetsFromTheResponseIsReadFromThatStep() throws {
        let text = collection(
            """
            {"name": "create", "request": {"method": "POST", "url": "http://h.example/items"},
             "event": [{"listen": "test", "script": {"exec": ["var data = pm.response.json();",
               "pm.environment.set(\\"itemId\\", data.items[0].id);"]}}]},
            {"name": "read", "request": {"method": "GET", "url": "http://h.example/items/{{itemId}}"}}
            """)
        let plan = try #require(importing([("c.json", text)]).text)
        #expect(plan.contains("url: \"/items/${{ steps.create.body.items[0].id }}\""), "\(plan)")
        #expect(plan.contains("# not converted: the test script of the request:"))
        #expect(plan.contains("#   pm.environment.set(\"itemId\", data.items[0].id);"))
        #expect(isValid(plan), "\(plan)")
    }

    @Test func authIsInheritedFromTheFolderAndNoauthStopsIt() throws {
        let text = collection(
            """
            {"name": "f", "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "t0ken-value"}]},
             "item": [{"name": "one", "request": {"url": "http://h.example/one"}},
                      {"name": "two", "request": {"url": "http://h.example/two", "auth": {"type": "noauth"}}}]}
            """)
        let plan = try #require(importing([("c.json", text)]).text)
        #expect(plan.contains("bearer: \"${{ inputs.token }}\"") && !plan.contains("t0ken-value"))
        #expect(plan.components(separatedBy: "bearer:").count == 2, "\(plan)")
        #expect(isValid(plan), "\(plan)")
    }

    @Test func foldersNestedDeeplyAreWalkedWithoutRecursion() throws {
        // 250 folders (the JSON reader's limit is 512 levels: two a folder), then one request.
        var text = "{\"name\": \"r\", \"request\": \"http://h.example/deep\"}"
        for level in 0..<250 { text = "{\"name\": \"f\(level)\", \"item\": [\(text)]}" }
        let plan = try #require(importing([("c.json", collection(text))]).text)
        #expect(plan.contains("url: /deep"))
        // Deeper than the reader reads: refused, not a crash.
        let deep = String(repeating: "{\"item\": [", count: 100_000) + String(repeating: "]}", count: 100_000)
        let refused = importing([("deep.json", deep)])
        #expect(refused.failed && refused.diagnostics.contains { $0.code == .importSourceMalformed })
    }

    @Test func escapeSequencesInNamesAndScriptsReachTheTerminalVisibly() throws {
        let text = collection(
            """
            {"name": "evil\\u001b]0;owned\\u0007\\u001b[2J", "request": {"method": "PROPFIND", "url": "http://h.example/"}},
            {"name": "ok\\u001b[8m", "request": "http://h.example/ok",
             "event": [{"listen": "prerequest", "script": {"exec": ["console.log('\\u001b[2J')"]}}]}
            """)
        let result = importing([("c.json", text)])
        let plan = try #require(result.text)
        let shown = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        #expect(!shown.contains("\u{1B}") && !plan.contains("\u{1B}"), "\(shown)")
        #expect(shown.contains("PROPFIND") && shown.contains("pre-request script"))
        #expect(isValid(plan), "\(plan)")
    }

    @Test func hugeNumbersInABodyKeepTheirDigits() throws {
        let text = collection(
            """
            {"name": "n", "request": {"method": "POST", "url": "http://h.example/n",
              "body": {"mode": "raw", "raw": "{\\"id\\": 18446744073709551615, \\"big\\": 99999999999999999999999}",
                       "options": {"raw": {"language": "json"}}}}}
            """)
        let plan = try #require(importing([("c.json", text)]).text)
        #expect(plan.contains("id: 18446744073709551615") && plan.contains("big: 99999999999999999999999"), "\(plan)")
        #expect(isValid(plan), "\(plan)")
    }
}
