import ReqPlanSyntax
import Testing

@testable import ReqPlanPlanner

/// Which optional `env:` inputs a run would leave without a value, and where requests use them.
@Suite struct UnsetEnvironmentTests {
    static let plan = """
        reqplan: 1
        inputs:
          token: { env: TOKEN }
        steps:
          me: { request: { url: "http://h/me", auth: { bearer: "${{ inputs.token }}" } } }

        """

    static func messages(environment: [String: String], given: Set<String> = []) throws -> [String] {
        let plan = try #require(PlanParser.parse(SourceFile(path: "p.yaml", text: plan)).plan)
        return UnsetEnvironment(plan: plan, environment: environment, given: given).warnings.map(\.message)
    }

    @Test func anEmptyVariableIsNamedAsEmpty() throws {
        #expect(
            try Self.messages(environment: ["TOKEN": ""])
                == ["`auth` reads input `token`, which is empty: the environment variable `TOKEN` is empty"])
    }

    @Test func aSetVariableOrAGivenValueIsNoWarning() throws {
        #expect(try Self.messages(environment: ["TOKEN": "t"]).isEmpty)
        #expect(try Self.messages(environment: [:], given: ["token"]).isEmpty)
    }
}
