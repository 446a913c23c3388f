import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// The order a workflow's steps run in (arazzo.md, "Order"): list order without step `dependsOn`, else
/// each step after its `dependsOn` steps and the steps whose outputs it reads.
@Suite("Order of an Arazzo workflow's steps")
struct WorkflowOrderTests {
    static let document = ArazzoFixtures.folder.appendingPathComponent("order/concurrent-steps.arazzo.yaml")

    /// The waves of workflow `id`: the step ids that start together, wave by wave.
    static func waves(of id: String, in document: URL = document, parallel: Bool = false) throws -> [[String]] {
        let reader = ArazzoReader(workflow: id, parallel: parallel, apiLoader: OpenAPIDocumentLoader())
        let report = PlanValidator.validate(
            fileAt: document.path, displayPath: document.lastPathComponent, allowFilesOutside: true,
            library: PlanLibrary(apiLoader: OpenAPIDocumentLoader(), documentReader: reader))
        #expect(report.errorCount == 0, "\(report.diagnostics)")
        let graph = try #require(report.graph)
        return graph.waves.map { wave in wave.map { graph.nodes[$0].id }.sorted() }
    }

    @Test("with step dependsOn (1.1), independent steps start together and a step waits for what it reads")
    func dependsOnRunsIndependentStepsTogether() throws {
        // `order` depends on `coupons` and reads `pet`'s output, so it waits for both.
        #expect(try Self.waves(of: "concurrent") == [["coupons", "pet"], ["order"]])
    }

    @Test("without step dependsOn, steps run one after another in list order")
    func stepsWithoutDependsOnRunInListOrder() throws {
        #expect(try Self.waves(of: "sequential") == [["coupons"], ["pet"]])
        #expect(try Self.waves(of: "writes") == [["coupons"], ["pet"], ["order"], ["rename"], ["lookup"]])
    }

    @Test(
        "with --parallel, a sequential workflow runs by its data flow, a write kept after and before what it may touch")
    func parallelKeepsWritesInOrder() throws {
        // `order` reads `pet`'s output; `rename` writes /pet/{petId}, which `coupons` and `pet` read before
        // it; `lookup` reads /store/order/{orderId}, below the path `order` posts to.
        #expect(
            try Self.waves(of: "writes", parallel: true) == [["coupons", "pet"], ["order", "rename"], ["lookup"]])
        #expect(try Self.waves(of: "sequential", parallel: true) == [["coupons", "pet"]])
    }

    @Test("a workflow whose steps move control (goto, end) keeps its list order, even with --parallel")
    func gotoKeepsListOrder() throws {
        let document = ArazzoFixtures.folder.appendingPathComponent("run/goto.arazzo.yaml")
        let inOrder = [["find-pet"], ["find-coupons"], ["place-order"], ["check-order"]]
        #expect(try Self.waves(of: "adopt", in: document) == inOrder)
        #expect(try Self.waves(of: "adopt", in: document, parallel: true) == inOrder)
    }
}

/// Runtime expressions (Arazzo 1.0.1 §4.8) as `RuntimeExpression` reads them.
@Suite("Runtime expressions")
struct RuntimeExpressionTests {
    @Test("a body pointer is read as unescaped tokens")
    func bodyPointerTokens() throws {
        let parsed = try RuntimeExpression.parse("$response.body#/items/0/a~1b~0c")
        #expect(parsed.root == .response(.body))
        #expect(parsed.pointer == ["items", "0", "a/b~c"])
    }

    @Test("step outputs, inputs and headers name what they read")
    func rootsAndNames() throws {
        #expect(
            try RuntimeExpression.parse("$steps.login.outputs.token").root == .steps("login", ["outputs", "token"]))
        #expect(try RuntimeExpression.parse("$inputs.user").root == .inputs("user"))
        #expect(try RuntimeExpression.parse("$response.header.X-Rate-Limit").root == .response(.header("X-Rate-Limit")))
    }

    @Test("a misspelt root is refused with a suggestion", arguments: ["$respons.body", "$statuscode"])
    func misspeltRootIsRefused(_ text: String) {
        #expect(throws: RuntimeExpression.SyntaxError.self) { try RuntimeExpression.parse(text) }
        do {
            _ = try RuntimeExpression.parse(text)
        } catch {
            #expect(error.message.contains("did you mean"), "\(error.message)")
        }
    }

    @Test("a response has no query or path parameters, and `~` must be escaped in a pointer")
    func impossibleReadsAreRefused() {
        for text in ["$response.query.page", "$response.path.id", "$response.body#/a~2"] {
            #expect(throws: RuntimeExpression.SyntaxError.self, "\(text)") { try RuntimeExpression.parse(text) }
        }
    }
}
