import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPlanner

@Suite struct SubPlanGraphTests {
    @Test func aSubPlansStepsNestUnderItsStepWithPathIds() throws {
        let files = try PlanFiles([
            "shared/login.yaml": PlanFiles.loginPlan,
            "main.yaml": """
            reqplan: 1
            defaults: { base_url: "http://127.0.0.1:8080" }
            steps:
              login: { plan: { file: shared/login.yaml, inputs: { user: alice } } }
              me: { request: { url: "/me/${{ steps.login.outputs.token }}" } }
            """,
        ])
        let graph = try files.graph()
        // Ids are unique in a file, so a sub-plan's steps are named by the step and their own id.
        #expect(graph.nodes.map(\.id) == ["login", "login/flow", "login/form", "login/submit", "me"])
        #expect(graph.nodes.map(\.localID) == ["login", "flow", "form", "submit", "me"])
        #expect(graph.nodes.map(\.instance) == [0, 1, 1, 1, 0])
        let login = try #require(graph.node("login"))
        #expect(login.kind == .plan)
        #expect(login.children == [try #require(graph.index["login/flow"])])
        #expect(graph.node("login/form")?.depth == 2)
        #expect(graph.subPlanInstance(of: login.nodeID) == 1)
        #expect(graph.instances[1].caller == login.nodeID)
        #expect(graph.instances[1].index["submit"] == graph.index["login/submit"])
        // The sequence's order is the sub-plan's own; `me` waits for the whole sub-plan.
        #expect(graph.node("login/submit")?.dependencies.map { graph.nodes[$0.target].id } == ["login/form"])
        #expect(graph.node("me")?.dependencies.map { graph.nodes[$0.target].id } == ["login"])
        #expect(graph.waves.map { $0.map { graph.nodes[$0].id } } == [["login/form"], ["login/submit"], ["me"]])
        #expect(graph.criticalPath.map { graph.nodes[$0].id } == ["login/form", "login/submit", "me"])
        // What the sub-plan's outputs read is kept; reading `outputs` keeps nothing more.
        #expect(graph.retention(of: try #require(graph.index["login/submit"])).body)
        #expect(!graph.retention(of: try #require(graph.index["login/form"])).body)
    }

    @Test func aFileRunByTwoStepsIsReadOnceAndNestedTwiceWithItsOwnInstances() throws {
        let files = try PlanFiles([
            "login.yaml": PlanFiles.loginPlan,
            "main.yaml": """
            reqplan: 1
            steps:
              alice: { plan: { file: login.yaml, inputs: { user: alice } } }
              bob: { plan: { file: ./login.yaml, inputs: { user: bob } } }
            """,
        ])
        let library = PlanLibrary()
        let report = files.validate(library: library)
        let graph = try #require(report.graph)
        #expect(library.filesRead == 2)
        #expect(graph.instances.count == 3)
        #expect(graph.node("alice/submit")?.instance == 1)
        #expect(graph.node("bob/submit")?.instance == 2)
        #expect(report.includedFiles == ["login.yaml"])
        #expect(graph.sources.map(\.path) == ["main.yaml", "login.yaml"])
    }

    @Test func plansOfOneValidationShareTheirSubPlansCheck() throws {
        var texts = ["shared/login.yaml": PlanFiles.loginPlan]
        for number in 0..<40 {
            texts["plan\(number).yaml"] = """
                reqplan: 1
                steps:
                  login: { plan: { file: shared/login.yaml, inputs: { user: user\(number) } } }
                outputs:
                  user: ${{ steps.login.outputs.user }}
                """
        }
        let files = try PlanFiles(texts)
        let library = PlanLibrary()
        for number in 0..<40 {
            #expect(files.validate("plan\(number).yaml", library: library).errorCount == 0)
        }
        #expect(library.filesRead == 41, "each plan once, the sub-plan once")
    }

    @Test func subPlansOfSubPlansNestTwoLevelsDeep() throws {
        let files = try PlanFiles([
            "a.yaml": "reqplan: 1\nsteps:\n  b: { plan: { file: lib/b.yaml } }\n",
            "lib/b.yaml": "reqplan: 1\nsteps:\n  c: { plan: { file: c.yaml } }\n",
            "lib/c.yaml": "reqplan: 1\nsteps:\n  d: { request: { url: http://127.0.0.1:8080/d } }\n",
        ])
        let graph = try files.graph("a.yaml")
        #expect(graph.nodes.map(\.id) == ["b", "b/c", "b/c/d"])
        #expect(graph.instances.map(\.caller) == [nil, 0, 1])
        #expect(
            graph.inclusionNotes(of: 2).map(\.message) == [
                "included from lib/b.yaml:3:22", "included from a.yaml:3:22",
            ])
    }

    @Test func aCycleBetweenFilesIsReportedFromWhicheverFileIsValidated() throws {
        let files = try PlanFiles([
            "a.yaml": "reqplan: 1\nsteps:\n  b: { plan: { file: b.yaml } }\n",
            "b.yaml": "reqplan: 1\nsteps:\n  a: { plan: { file: a.yaml } }\n",
        ])
        let library = PlanLibrary()
        let fromA = files.validate("a.yaml", library: library)
        let fromB = files.validate("b.yaml", library: library)
        #expect(fromA.diagnostics.map(\.message) == ["cycle between plan files: `a.yaml` → `b.yaml` → `a.yaml`"])
        #expect(fromB.diagnostics.map(\.message) == ["cycle between plan files: `b.yaml` → `a.yaml` → `b.yaml`"])
        #expect(fromA.diagnostics.first?.file == "b.yaml")
        #expect(fromB.diagnostics.first?.file == "a.yaml")
    }

    @Test func filesOutsideThePlansFolderAreAllowedOnlyWhenAsked() throws {
        let files = try PlanFiles([
            "shared/login.yaml": PlanFiles.loginPlan,
            "plans/main.yaml":
                "reqplan: 1\nsteps:\n  login: { plan: { file: ../shared/login.yaml, inputs: { user: a } } }\n",
        ])
        #expect(files.validate("plans/main.yaml").diagnostics.map(\.code) == [.fileOutsideFolder])
        #expect(files.validate("plans/main.yaml", allowOutside: true).errorCount == 0)
    }
}

@Suite struct SubPlanInterfaceTests {
    static let typed = """
        reqplan: 1
        inputs:
          text: { default: x }
          count: { type: number, default: 1 }
          flag: { type: boolean, default: false }
          items: { type: list, default: [] }
          options: { type: object, default: {} }
        steps:
          s: { request: { url: "http://127.0.0.1:8080/${{ inputs.text }}/${{ inputs.count }}" } }
        """

    /// A value given to each typed input, and whether `validate` accepts it (`nil`: accepted).
    static let values: [(input: String, value: String, rejected: Bool)] = [
        ("count", "3", false), ("count", "\"3\"", true), ("count", "\"${{ inputs.n }}\"", false),
        ("count", "\"${{ inputs.s }}\"", true), ("count", "\"n: ${{ inputs.n }}\"", true),
        ("count", "\"${{ length(inputs.s) }}\"", false), ("count", "\"${{ steps.a.duration }}\"", false),
        ("count", "\"${{ steps.a.body.n }}\"", false), ("count", "null", false), ("count", "\"${{ vars.n }}\"", false),
        ("count", "\"${{ vars.s }}\"", true),
        ("text", "\"${{ steps.a.state }}\"", false), ("text", "\"${{ steps.a.status }}\"", false),
        ("text", "\"${{ inputs.n == 1 }}\"", true), ("text", "\"${{ env.HOME }}\"", false), ("text", "[a]", true),
        ("flag", "true", false), ("flag", "\"${{ contains(inputs.s, 'a') }}\"", false), ("flag", "yes", true),
        ("items", "[1, 2]", false), ("items", "\"${{ match(inputs.s, 'a') }}\"", false), ("items", "{ a: 1 }", true),
        ("options", "{ a: 1 }", false), ("options", "\"${{ from_json('{}') }}\"", false), ("options", "\"{}\"", true),
    ]

    @Test(arguments: values.indices)
    func valuesOfAKnownTypeAreCheckedAgainstTheDeclaration(_ index: Int) throws {
        let (input, value, rejected) = Self.values[index]
        let files = try PlanFiles([
            "typed.yaml": Self.typed,
            "main.yaml": """
            reqplan: 1
            inputs:
              s: { default: a }
              n: { type: number, default: 1 }
              h: { env: HOME }
            vars:
              n: ${{ inputs.n }}
              s: "${{ inputs.s }}!"
            steps:
              a: { request: { url: http://127.0.0.1:8080/a } }
              call: { plan: { file: typed.yaml, inputs: { \(input): \(value) } } }
            """,
        ])
        let report = files.validate()
        let codes = report.diagnostics.filter { $0.severity == .error }.map(\.code)
        #expect(codes == (rejected ? [.subPlanInputType] : []), "\(input): \(value)\n\(files.render(report))")
    }

    @Test func anUnknownInputSuggestsTheCloseOneAndIsNotAlsoReportedMissing() throws {
        let files = try PlanFiles([
            "login.yaml": PlanFiles.loginPlan,
            "main.yaml":
                "reqplan: 1\nsteps:\n  login: { plan: { file: login.yaml, inputs: { usr: a, remembr: true } } }\n",
        ])
        let report = files.validate()
        #expect(report.diagnostics.map(\.code) == [.unknownSubPlanInput, .unknownSubPlanInput])
        #expect(report.diagnostics.map(\.hint) == ["did you mean `user`?", "did you mean `remember`?"])
        let note = try #require(report.diagnostics.first?.notes.first)
        #expect(note.file == "login.yaml" && note.range?.start.line == 3)
    }

    @Test func anInputReadFromTheEnvironmentNeedNotBeGiven() throws {
        let files = try PlanFiles([
            "sub.yaml": """
            reqplan: 1
            inputs:
              token: { env: SUB_TOKEN, required: true, secret: true }
            steps:
              s: { request: { url: "http://127.0.0.1:8080/${{ inputs.token }}" } }
            """,
            "main.yaml": "reqplan: 1\nsteps:\n  s: { plan: { file: sub.yaml } }\n",
        ])
        #expect(files.validate().errorCount == 0)
    }

    @Test func outputsAreReadOnlyFromPlanStepsAndByTheirDeclaredNames() throws {
        let files = try PlanFiles([
            "login.yaml": PlanFiles.loginPlan,
            "main.yaml": """
            reqplan: 1
            steps:
              login: { plan: { file: login.yaml, inputs: { user: a } } }
              g: { group: { r: { request: { url: http://127.0.0.1:8080/r } } } }
            outputs:
              a: ${{ steps.login.outputs.token }}
              b: ${{ steps.login.outputs }}
              c: ${{ steps.login.results[0].state }}
              d: ${{ steps.login.outputs.usr }}
              e: ${{ steps.g.outputs }}
              f: ${{ steps.login.status }}
            """,
        ])
        let report = files.validate()
        #expect(report.diagnostics.map(\.code) == [.unknownSubPlanOutput, .unknownField, .unknownField])
        #expect(report.diagnostics.map(\.range?.start.line) == [9, 10, 11])
    }
}

@Suite struct VarsTests {
    @Test func aStepThatReadsAVarWaitsForTheStepsTheVarReads() throws {
        let files = try PlanFiles(["main.yaml": PlanFiles.varsPlan])
        let graph = try files.graph()
        let me = try #require(graph.node("me"))
        #expect(me.dependencies.map { graph.nodes[$0.target].id } == ["login"])
        #expect(me.dependencies.first?.reason == .variable("bearer"))
        #expect(graph.instances[0].varSteps["bearer"] == [graph.index["login"]].compactMap { $0 })
        #expect(graph.instances[0].varSteps["api"] == [])
        #expect(graph.retention(of: try #require(graph.index["login"])).body, "the var reads the body later")
    }

    @Test func varsAreCheckedLikeEveryOtherRoot() throws {
        let files = try PlanFiles([
            "main.yaml": """
            reqplan: 1
            vars:
              a: ${{ item }}
              b: ${{ success() }}
              c: ${{ steps.inner.status }}
              d: ${{ vars.e }}
            steps:
              loop:
                for_each: [1]
                group:
                  inner: { request: { url: http://127.0.0.1:8080/x } }
              read: { request: { url: "http://127.0.0.1:8080/${{ vars }}" } }
            """
        ])
        let codes = files.validate().diagnostics.map(\.code)
        #expect(codes == [.itemOutOfScope, .invalidCall, .unreachableStep, .unknownVar, .unknownVar])
    }
}

@Suite struct LiteralFileTests {
    @Test func filesNamedLiterallyMustExistButComputedOnesAreLeftToTheRun() throws {
        let files = try PlanFiles([
            "data/items.json": "[]",
            "main.yaml": """
            reqplan: 1
            inputs:
              name: { default: x.png }
            defaults: { base_url: "http://127.0.0.1:8080" }
            steps:
              a: { request: { method: POST, url: /a, body_file: data/items.json } }
              b: { request: { method: POST, url: /b, body_file: data/item.json } }
              c: { request: { method: POST, url: /c, multipart: { f: { file: "data/${{ inputs.name }}" } } } }
              d:
                for_each: [1, 2]
                request: { method: POST, url: /d, multipart: { f: { file: data } } }
            """,
        ])
        let report = files.validate()
        #expect(report.diagnostics.map(\.code) == [.fileNotFound, .fileNotFound])
        #expect(
            report.diagnostics.map(\.message) == [
                "`body_file` `data/item.json` does not exist",
                "file `data` of multipart part `f` is a folder, not a file",
            ])
        #expect(report.diagnostics.first?.hint == "did you mean `data/items.json`?")
    }

    @Test func plansValidatedFromTextDoNotCheckTheirFiles() {
        let report = PlanValidator.validate(
            SourceFile(
                path: "t.yaml",
                text: """
                    reqplan: 1
                    steps:
                      a: { request: { method: POST, url: http://127.0.0.1:8080/a, body_file: nowhere.bin } }
                    """))
        #expect(report.errorCount == 0)
    }
}
