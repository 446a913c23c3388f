import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// `reqplan import insomnia`: formats refused with their reason, groups whose `parentId`s loop, deep groups,
/// YAML aliases, escape sequences in names, and the `{% response %}` tag read as data flow.
@Suite struct InsomniaImportTests {
    private func importing(_ text: String) -> ImportResult {
        Importer.importPlan(.insomnia, from: [SourceFile(path: "export.yaml", text: text)])
    }

    private func isValid(_ text: String) -> Bool {
        let report = PlanValidator.validate(SourceFile(path: "plan.yaml", text: text))
        return PlanValidator.checkRunValues([report], inputs: [], environment: [:]).allSatisfy {
            $0.isValid(strict: true)
        }
    }

    private func export(_ resources: String) -> String {
        "_type: export\n__export_format: 4\nresources:\n  - { _id: wrk_1, parentId: null, name: w, _type: workspace }\n"
            + resources
    }

    @Test func anotherExportFormatIsRefusedWithItsReason() {
        let v3 = importing("_type: export\n__export_format: 3\nresources: []\n")
        #expect(v3.failed && v3.diagnostics.first?.code == .importSourceMalformed)
        #expect(v3.diagnostics.first?.range?.start.line == 2)
        let v5 = importing("type: collection.insomnia.rest/5.0\nname: c\ncollection: []\n")
        #expect(v5.failed && v5.diagnostics.first?.message.contains("v5") == true)
    }

    @Test func groupsWhoseParentsLoopAreWalkedOnce() throws {
        let text = export(
            """
              - { _id: fld_a, parentId: wrk_1, name: a, _type: request_group }
              - { _id: wrk_1, parentId: fld_a, name: loop, _type: request_group }
              - { _id: req_1, parentId: fld_a, name: one, url: "http://h.example/one", method: GET, _type: request }
            """)
        let plan = try #require(importing(text).text)
        #expect(plan.components(separatedBy: "url: /one").count == 2, "\(plan)")
    }

    @Test func deepGroupsAndAliasBombsStayWithinBounds() throws {
        var resources = ""
        for level in 0..<2000 {
            resources +=
                "  - { _id: fld_\(level), parentId: \(level == 0 ? "wrk_1" : "fld_\(level - 1)"), name: f, _type: request_group }\n"
        }
        resources +=
            "  - { _id: req_1, parentId: fld_1999, name: deep, url: \"http://h.example/deep\", _type: request }\n"
        let plan = try #require(importing(export(resources)).text)
        #expect(plan.contains("url: /deep"))
        var bomb = "_type: export\n__export_format: 4\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<12 {
            bomb +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        bomb += "resources: *a11\n"
        #expect(importing(bomb).failed)
    }

    @Test func escapeSequencesInNamesReachTheTerminalVisibly() throws {
        let text = export(
            """
              - _id: req_1
                parentId: wrk_1
                name: "evil\\e]0;owned\\a\\e[2J"
                url: "http://h.example/x"
                preRequestScript: "console.log('\\e[8m')"
                _type: request
              - { _id: ws_1, parentId: wrk_1, name: "ws\\e[2J", url: "ws://h.example", _type: websocket_request }
            """)
        let result = importing(text)
        let plan = try #require(result.text)
        let shown = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        #expect(!shown.contains("\u{1B}") && !plan.contains("\u{1B}"), "\(shown)")
        #expect(shown.contains("WebSocket") && shown.contains("pre-request script"))
        #expect(isValid(plan), "\(plan)")
    }

    @Test func aResponseTagOfAnEarlierRequestIsReadFromThatStep() throws {
        let text = export(
            """
              - { _id: req_1, parentId: wrk_1, name: login, method: POST, url: "http://h.example/login", metaSortKey: 1, _type: request }
              - _id: req_2
                parentId: wrk_1
                name: me
                metaSortKey: 2
                url: "http://h.example/me/{% response 'body', 'req_1', 'b64::JC51c2VyLmlk::46b', 'never', 60 %}"
                headers:
                  - { name: X-Next, value: "{% response 'header', 'req_1', 'Location' %}" }
                  - { name: X-Faker, value: "{% faker 'randomUUID' %}" }
                _type: request
            """)
        let result = importing(text)
        let plan = try #require(result.text)
        #expect(
            plan.contains("${{ steps.login.body.user.id }}") && plan.contains("${{ steps.login.headers.location }}"))
        #expect(result.diagnostics.contains { $0.message.contains("faker") }, "\(plan)")
        #expect(isValid(plan), "\(plan)")
    }
}
