import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPlanner

/// `PlanGraph.usesOAuth2`: `reqplan load` gives each iteration a token cache of its own only when a request
/// can take a grant's token, wherever the plan writes the grant.
@Suite struct OAuth2UseTests {
    static let grant = """
        { oauth2: { token_url: "http://127.0.0.1:1/token", client_id: c, client_secret: s } }
        """

    private func usesOAuth2(_ plan: String, files extra: [String: String] = [:]) throws -> Bool {
        try PlanFiles(["main.yaml": plan].merging(extra) { a, _ in a }).graph().usesOAuth2
    }

    @Test(arguments: [
        // Its own auth, its plan's defaults, a for_each's request, a sub-plan's defaults.
        "steps:\n  a: { request: { url: \"http://h/\", auth: \(grant) } }",
        "defaults: { auth: \(grant) }\nsteps:\n  a: { request: { url: \"http://h/\" } }",
        "steps:\n  a: { for_each: [1, 2], request: { url: \"http://h/\", auth: \(grant) } }",
        "steps:\n  g: { group: { a: { request: { url: \"http://h/\" } }, b: { request: { url: \"http://h/\", auth: \(grant) } } } }",
    ])
    func aGrantAnywhereIsFound(body: String) throws {
        #expect(try usesOAuth2("reqplan: 1\n" + body + "\n"))
    }

    @Test func aGrantInASubPlanIsFound() throws {
        let sub = "reqplan: 1\ndefaults: { auth: \(Self.grant) }\nsteps:\n  a: { request: { url: \"http://h/\" } }\n"
        #expect(try usesOAuth2("reqplan: 1\nsteps:\n  s: { plan: { file: sub.yaml } }\n", files: ["sub.yaml": sub]))
    }

    @Test func otherCredentialsAreNoGrant() throws {
        let plan = """
            reqplan: 1
            defaults: { auth: { bearer: t } }
            steps:
              a: { request: { url: "http://h/", auth: { basic: { username: u, password: p } } } }
              b: { request: { url: "http://h/" } }
              c: { for_each: [1], group: { d: { request: { url: "http://h/" } } } }
            """
        #expect(try !usesOAuth2(plan))
    }
}
