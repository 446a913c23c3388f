import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPlanner

/// A plan with steps at every depth (a group's member, a sequence's, a for_each body's, a for_each over a
/// request) and `slo:` as given (its lines indented by two spaces).
private func validate(slo: String) -> ValidationReport {
    let text = """
        reqplan: 1
        defaults: { base_url: "http://127.0.0.1:8080" }
        steps:
          login: { request: { method: POST, url: /login } }
          shop:
            group:
              browse: { request: { url: /items } }
              buy:
                sequence:
                  cart: { request: { method: POST, url: /cart } }
                  checkout: { request: { method: POST, url: /checkout } }
          images:
            for_each: [1, 2]
            group:
              thumbnail: { request: { url: "/images/${{ item }}" } }
          pings:
            for_each: [1, 2]
            request: { url: "/ping/${{ item }}" }
        slo:
        \(slo)
        """
    return PlanValidator.validate(SourceFile(path: "t.yaml", text: text))
}

private func messages(_ report: ValidationReport) -> [String] {
    report.diagnostics.map { "\($0.code) \($0.message)" }
}

@Suite struct ObjectivePlanningTests {
    @Test func aStepAtAnyDepthOfAnyKindMayBeNamed() {
        let report = validate(
            slo: """
                  - { p95: 2s }
                  - { step: login, p99: 300ms, error_rate: "< 1%" }
                  - { step: shop, max: 5s }
                  - { step: browse, mean: 100ms }
                  - { step: buy, p50: 1s }
                  - { step: checkout, p99.9: "< 1s" }
                  - { step: images, p95: 1s }
                  - { step: thumbnail, p95: 200ms }
                  - { step: pings, error_rate: 0% }
                """)
        #expect(report.diagnostics.isEmpty, "\(messages(report))")
        #expect(report.graph != nil)
        #expect(report.plan?.slo.count == 9)
    }

    @Test func anUnknownStepHasADidYouMeanAndItsFix() throws {
        let report = validate(slo: "  - { step: chekout, p95: 300ms }")
        #expect(report.errorCount == 1)
        let error = try #require(report.diagnostics.first)
        #expect(error.code == .unknownStep)
        #expect(error.message == "`step` of `slo` names `chekout`, but there is no such step")
        #expect(error.range?.start == SourceLocation(line: 20, column: 13))
        #expect(error.hint == "did you mean `checkout`?")
        #expect(error.fix?.replacement == "checkout")
        #expect(error.fix?.isSafe == true)
        #expect(report.graph == nil)
    }

    @Test func anUnknownStepFarFromAnySaysWhatToName() throws {
        let report = validate(slo: "  - { step: payment, p95: 300ms }")
        let error = try #require(report.diagnostics.first)
        #expect(error.code == .unknownStep)
        #expect(error.hint?.contains("without `step`, the limits are the whole iteration's") == true)
        #expect(error.fix == nil)
    }

    @Test func aStepWhoseDeclarationHasErrorsIsNotReportedAgain() {
        let report = PlanValidator.validate(
            SourceFile(
                path: "t.yaml",
                text: """
                    reqplan: 1
                    steps:
                      login: { request: { method: post, url: "http://h/login" } }
                    slo:
                      - { step: login, p95: 1s }
                    """))
        #expect(messages(report).filter { $0.hasPrefix("RP0203") }.isEmpty, "\(messages(report))")
        #expect(report.errorCount == 1)
    }

    @Test func aLimitGivenTwiceForOneSubjectIsAWarningAndBothStay() throws {
        let report = validate(
            slo: """
                  - { step: checkout, p95: 300ms }
                  - { step: checkout, p95.0: 200ms, max: 1s }
                  - { step: cart, p95: 300ms }
                  - { p95: 2s, max: 5s }
                  - { max: 4s }
                """)
        #expect(report.errorCount == 0)
        #expect(report.graph != nil)
        let warnings = report.diagnostics.filter { $0.severity == .warning }
        #expect(warnings.map(\.code) == [.repeatedObjective, .repeatedObjective])
        #expect(
            warnings.map(\.message) == [
                "`p95.0` of step `checkout` is given by an earlier `slo` item too (as `p95`): both are checked",
                "`max` of the whole iteration is given by an earlier `slo` item too: both are checked",
            ])
        #expect(warnings.first?.range?.start == SourceLocation(line: 21, column: 23))
        #expect(warnings.first?.notes.first?.range?.start == SourceLocation(line: 20, column: 23))
        #expect(report.plan?.slo.map(\.limits.count) == [1, 2, 1, 2, 1])
    }

    @Test func aStepOfASubPlanCannotBeNamedAndTheHintSaysWhichStepRunsIt() throws {
        let files = try PlanFiles([
            "login.yaml": PlanFiles.loginPlan,
            "main.yaml": """
            reqplan: 1
            steps:
              session: { plan: { file: login.yaml, inputs: { user: alice } } }
            slo:
              - { step: submit, p95: 1s }
              - { step: session/form, p95: 1s }
              - { step: session, p95: 2s }
            """,
        ])
        defer { files.remove() }
        let report = files.validate()
        let errors = report.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == [.unknownStep, .unknownStep], "\(files.render(report))")
        #expect(
            errors.map(\.message) == [
                "`step` of `slo` names `submit`, a step of the sub-plan run by `session`, not of this plan",
                "`step` of `slo` names `session/form`, a step of the sub-plan run by `session`, not of this plan",
            ])
        #expect(errors.first?.hint?.hasPrefix("name `session` to hold the whole sub-plan to the limits") == true)
    }

    @Test func theObjectivesOfASubPlanAreAWarningAtTheStepThatRunsIt() throws {
        let files = try PlanFiles([
            "login.yaml": PlanFiles.loginPlan + "\nslo:\n  - { step: submit, p95: 1s }\n",
            "main.yaml": """
            reqplan: 1
            steps:
              alice: { plan: { file: login.yaml, inputs: { user: alice } } }
              bob: { plan: { file: login.yaml, inputs: { user: bob } } }
            """,
        ])
        defer { files.remove() }
        let report = files.validate()
        #expect(report.errorCount == 0, "\(files.render(report))")
        let warnings = report.diagnostics.filter { $0.code == .subPlanObjectives }
        #expect(warnings.count == 2)
        let warning = try #require(warnings.first)
        #expect(warning.severity == .warning)
        #expect(warning.message == "sub-plan `login.yaml` has `slo:`, which is not checked when it runs as a step")
        #expect(warning.file == "main.yaml")
        #expect(warning.range?.start == SourceLocation(line: 3, column: 26))
        #expect(warning.notes.first?.file?.hasSuffix("login.yaml") == true)
        #expect(warning.notes.first?.range?.start.line == 15)
        #expect(warning.hint?.contains("`step: alice`") == true)
        // Given to a load run itself, the sub-plan's file has nothing to warn about.
        #expect(files.validate("login.yaml").diagnostics.isEmpty)
    }
}
