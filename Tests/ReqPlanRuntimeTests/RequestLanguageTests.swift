import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// Builds the request of step `id` of a plan written in a test, with `inputs`, recording secrets in `secrets`.
private func buildRequest(
    _ yaml: String, step id: String = "a", inputs: [String: Value] = [:], secrets: SecretStore = SecretStore()
) throws -> PreparedRequest {
    let graph = try makeGraph(yaml)
    let node = try #require(graph.node(id))
    let spec = try #require(node.step.request)
    let builder = RequestBuilder(
        defaults: graph.plan.defaults,
        files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
    let context = EvaluationContext(inputs: inputs, environment: [:], step: { _ in nil })
    return try builder.build(spec, in: context, usesCookies: graph.usesCookies(node.nodeID), secrets: secrets)
}

private func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

@Suite struct AuthTests {
    @Test func basicCredentialsBecomeTheAuthorizationHeaderAndSecrets() throws {
        let secrets = SecretStore()
        let request = try buildRequest(
            planHeader + """
                inputs: { user: alice, password: "pä:ss" }
                steps:
                  a: { request: { url: /a, auth: { basic: { username: "${{ inputs.user }}", password: "${{ inputs.password }}" } } } }
                """, inputs: ["user": .string("alice"), "password": .string("pä:ss")], secrets: secrets)
        let encoded = base64("alice:pä:ss")
        #expect(request.header("Authorization") == "Basic \(encoded)")
        #expect(Set(secrets.all) == ["pä:ss", "alice:pä:ss", encoded, "Basic \(encoded)"])
    }

    @Test func aBearerTokenIsSentAndHidden() throws {
        let secrets = SecretStore()
        let request = try buildRequest(
            planHeader + """
                steps:
                  a: { request: { url: /a, auth: { bearer: tok-123 } } }
                """, secrets: secrets)
        #expect(request.header("Authorization") == "Bearer tok-123")
        #expect(Set(secrets.all) == ["tok-123", "Bearer tok-123"])
    }

    /// The request's own choice wins over the default's, whichever form either is written in.
    @Test(arguments: [
        ("auth: { bearer: own }", "Bearer own"),
        ("headers: { authorization: Own }", "Own"),
        ("", "Bearer default"),
    ])
    func theRequestsOwnCredentialsReplaceTheDefaultAuth(own: String, expected: String) throws {
        let request = try buildRequest(
            """
            reqplan: 1
            defaults: { base_url: "http://test", auth: { bearer: default } }
            steps:
              a: { request: { url: /a, \(own) } }
            """)
        #expect(request.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == [expected])
    }

    @Test func theRequestsOwnAuthReplacesADefaultAuthorizationHeader() throws {
        let request = try buildRequest(
            """
            reqplan: 1
            defaults: { base_url: "http://test", headers: { Authorization: Default, X-Other: kept } }
            steps:
              a: { request: { url: /a, auth: { bearer: own } } }
            """)
        #expect(request.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer own"])
        #expect(request.header("X-Other") == "kept")
    }

    @Test func credentialsInTheURLAreSentAsBasicAuthAndRemovedFromIt() throws {
        let secrets = SecretStore()
        let request = try buildRequest(
            """
            reqplan: 1
            steps:
              a: { request: { url: "http://al%40ice:p%3Ass@h:8080/x@y?q=a@b" } }
            """, secrets: secrets)
        #expect(request.url.text == "http://h:8080/x@y?q=a@b")
        let encoded = base64("al@ice:p:ss")
        #expect(request.header("Authorization") == "Basic \(encoded)")
        #expect(Set(secrets.all).isSuperset(of: ["al@ice", "p:ss", encoded, "Basic \(encoded)"]))
    }

    @Test func credentialsInTheBaseURLCountToo() throws {
        let request = try buildRequest(
            """
            reqplan: 1
            defaults: { base_url: "https://bob@h/api" }
            steps:
              a: { request: { url: /a } }
            """)
        #expect(request.url.text == "https://h/api/a")
        #expect(request.header("Authorization") == "Basic \(base64("bob:"))")
    }

    @Test(arguments: ["auth: { bearer: explicit }", "headers: { Authorization: Bearer explicit }"])
    func anExplicitAuthorizationWinsOverURLCredentials(own: String) throws {
        let request = try buildRequest(
            """
            reqplan: 1
            steps:
              a: { request: { url: "http://u:p@h/a", \(own) } }
            """)
        #expect(request.url.text == "http://h/a")
        #expect(request.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer explicit"])
    }

    @Test func anAPIKeyGoesInItsHeaderQueryOrCookieAndIsShownHidden() throws {
        let secrets = SecretStore()
        let yaml =
            planHeader + """
                inputs: { key: { type: string } }
                steps:
                  h: { request: { url: /a, auth: { api_key: { header: X-API-Key, value: "${{ inputs.key }}" } } } }
                  q: { request: { url: "/a?x=1", auth: { api_key: { query: "api key", value: "${{ inputs.key }}" } } } }
                  c: { request: { url: /a, headers: { Cookie: "lang=en" }, auth: { api_key: { cookie: sid, value: "${{ inputs.key }}" } } } }
                """
        let inputs: [String: Value] = ["key": .string("k/1 &é")]
        let header = try buildRequest(yaml, step: "h", inputs: inputs, secrets: secrets)
        #expect(header.header("X-API-Key") == "k/1 &é")
        #expect(header.shownHeaders.first { $0.name == "X-API-Key" }?.value == "***")
        #expect(header.header("Authorization") == nil)
        let query = try buildRequest(yaml, step: "q", inputs: inputs, secrets: secrets)
        #expect(query.url.text == "http://test/a?x=1&api%20key=k%2F1%20%26%C3%A9")
        #expect(query.shownURL == "http://test/a?x=1&api%20key=***")
        let cookie = try buildRequest(yaml, step: "c", inputs: inputs, secrets: secrets)
        #expect(cookie.headers.filter { $0.name == "Cookie" }.map(\.value) == ["lang=en", "sid=k/1 &é"])
        #expect(!cookie.shownHeaders.contains { $0.value.contains("k/1") })
        #expect(secrets.all.contains("k/1 &é"))
    }

    @Test func aRequestsOwnHeaderOfADefaultAPIKeysNameReplacesIt() throws {
        let yaml = """
            reqplan: 1
            defaults: { base_url: "http://test", auth: { api_key: { header: X-API-Key, value: default-key } } }
            steps:
              own: { request: { url: /a, headers: { x-api-key: own-key } } }
              other: { request: { url: /a, auth: { bearer: tok } } }
              plain: { request: { url: /a } }
            """
        #expect(
            try buildRequest(yaml, step: "own").headers.filter { $0.name.lowercased() == "x-api-key" }.map(\.value) == [
                "own-key"
            ])
        let other = try buildRequest(yaml, step: "other")
        #expect(other.header("X-API-Key") == nil && other.header("Authorization") == "Bearer tok")
        #expect(try buildRequest(yaml, step: "plain").header("X-API-Key") == "default-key")
    }

    @Test func aDefaultAuthWinsOverURLCredentialsToo() throws {
        let request = try buildRequest(
            """
            reqplan: 1
            defaults: { auth: { bearer: default } }
            steps:
              a: { request: { url: "http://u:p@h/a" } }
            """)
        #expect(request.header("Authorization") == "Bearer default")
    }

    @Test func aURLWithoutUserInformationIsLeftAlone() throws {
        let request = try buildRequest(
            """
            reqplan: 1
            steps:
              a: { request: { url: "http://h/a?mail=a@b.c#x@y" } }
            """)
        #expect(request.url.text == "http://h/a?mail=a@b.c#x@y")
        #expect(request.header("Authorization") == nil)
    }

    @Test func aStepReferencedFromAuthIsADependency() throws {
        let graph = try makeGraph(
            planHeader + """
                steps:
                  login: { request: { url: /login } }
                  me: { request: { url: /me, auth: { bearer: "${{ steps.login.body.token }}" } } }
                """)
        let login = try #require(graph.index["login"])
        #expect(graph.node("me")?.dependencies.map(\.target) == [login])
        #expect(graph.retention(of: login).body)
    }
}

@Suite struct RedirectAndCookieSettingTests {
    @Test(
        arguments: [
            ("", "", nil),
            ("follow_redirects: false", "", false),
            ("follow_redirects: false", ", follow_redirects: true", true),
            ("", ", follow_redirects: false", false),
        ] as [(String, String, Bool?)])
    func followRedirectsComesFromTheRequestThenTheDefaults(defaults: String, own: String, expected: Bool?) throws {
        let request = try buildRequest(
            """
            reqplan: 1
            defaults: { base_url: "http://test", \(defaults) }
            steps:
              a: { request: { url: /a\(own) } }
            """)
        #expect(request.followRedirects == expected)
    }

    @Test func theInnermostCookiesSettingWins() throws {
        let plan =
            planHeader + """
                cookies: false
                steps:
                  plain: { request: { url: /plain } }
                  session:
                    cookies: true
                    group:
                      login: { request: { url: /login } }
                      logout: { cookies: false, request: { url: /logout } }
                      nested:
                        sequence:
                          deep: { request: { url: /deep } }
                  each:
                    for_each: [1]
                    group:
                      item: { request: { url: /item } }
                """
        let expected = ["plain": false, "login": true, "logout": false, "deep": true, "item": false]
        for (id, usesCookies) in expected {
            #expect(try buildRequest(plan, step: id).usesCookies == usesCookies, "\(id)")
        }
        #expect(try buildRequest(planHeader + "steps:\n  a: { request: { url: /a } }\n").usesCookies)
    }
}

/// A transport that answers every request with the cookies its path names (`/c/a=1/b=2/a=3`).
private struct CookieSettingTransport: Transport {
    func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let path = request.url.path
        let cookies = path.split(separator: "/").dropFirst().compactMap { pair -> HeaderField? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? HeaderField(String(parts[0]), String(parts[1])) : nil
        }
        return TransportResponse(
            status: 200, headers: [HeaderField("Content-Type", "application/json")],
            body: Array("{}".utf8), setCookies: cookies)
    }
}

@Suite struct CookiesResultTests {
    @Test func cookiesTheResponseSetAreReadableAndALaterOneWins() async throws {
        let result = try await run(
            planHeader + """
                steps:
                  login: { request: { url: /c/sid=one/theme=dark/sid=two } }
                  each:
                    for_each: [x]
                    request: { url: /c/item=1 }
                outputs:
                  sid: ${{ steps.login.cookies.sid }}
                  all: ${{ steps.login.cookies }}
                  items: ${{ steps.each.results[*].cookies.item }}
                """, transport: CookieSettingTransport())
        #expect(result.exitCode == 0)
        #expect(result.outputs[0].value == .string("two"))
        #expect(result.outputs[1].value == .object([.init("sid", .string("two")), .init("theme", .string("dark"))]))
        #expect(result.outputs[2].value == .list([.string("1")]))
    }

    @Test func theURLRequestedIsReadAsUrlWithSecretValuesHidden() async throws {
        let result = try await run(
            """
            reqplan: 1
            defaults: { base_url: "http://test" }
            inputs:
              token: { secret: true }
            steps:
              a: { request: { url: "/c/a=1?token=${{ inputs.token }}" } }
              b:
                request: { url: /c/b=2 }
                poll: { until: "${{ response.url == 'http://test/c/b=2' }}", every: 1ms, attempts: 2 }
            outputs:
              a: ${{ steps.a.url }}
              b: ${{ steps.b.url }}
            """, transport: CookieSettingTransport(), inputs: ["token": .string("s3cret-token")])
        #expect(result.exitCode == 0)
        #expect(result.outputs[0].value == .string("http://test/c/a=1?token=***"))
        #expect(result.outputs[1].value == .string("http://test/c/b=2"))
        #expect(result.results["b"]?.attempts.count == 1)
    }

    @Test func aPartOfAComputedValueIsShownUnlessTheValueReadsASecret() async throws {
        let result = try await run(
            """
            reqplan: 1
            defaults: { base_url: "http://test" }
            inputs:
              token: { secret: true }
            steps:
              a: { request: { url: /c/a=1 } }
            outputs:
              plain: ${{ from_json('[{"name":"doggie"}]')[0].name }}
              secret: ${{ from_json(inputs.token)[0] }}
            """, transport: CookieSettingTransport(), inputs: ["token": .string("[\"s3cret-token\"]")])
        #expect(result.exitCode == 0)
        #expect(result.shownOutputs.map(\.value) == [.string("doggie"), .string("***")])
    }

    @Test func cookiesAreKeptOnlyWhenSomethingReadsThem() async throws {
        let result = try await run(
            planHeader + """
                steps:
                  unread: { request: { url: /c/a=1 } }
                  read: { request: { url: /c/b=2 } }
                outputs:
                  b: ${{ steps.read.cookies.b }}
                """, transport: CookieSettingTransport())
        #expect(result.results["unread"]?.cookies == nil)
        #expect(result.results["read"]?.cookies == [HeaderField("b", "2")])
        let graph = try makeGraph(
            planHeader + """
                steps:
                  a: { request: { url: /a } }
                  b: { request: { url: "/b/${{ steps.a.status }}" } }
                """)
        #expect(graph.retention(of: try #require(graph.index["a"])).cookies == false)
    }
}

@Suite struct MatchAndXPathTests {
    private func evaluate(_ text: String) throws -> Value {
        let parsed = PlanParser.parse(
            SourceFile(
                path: "t.yaml",
                text: "reqplan: 1\nsteps: { a: { request: { url: \"http://h\" } } }\noutputs:\n  x: \(text)\n"))
        let template = try #require(parsed.plan?.outputs.first?.value)
        let context = EvaluationContext(inputs: [:], environment: [:], step: { _ in nil })
        return try ExpressionEvaluator.evaluate(template, in: context)
    }

    @Test(arguments: [
        (
            #"${{ match('<input name="csrf" value="t0k">', 'value="([^"]+)"') }}"#,
            Value.list([.string(#"value="t0k""#), .string("t0k")])
        ),
        (#"${{ match('abc', 'x(y)') }}"#, .null),
        (#"${{ match('ac', 'a(b)?c') }}"#, .list([.string("ac"), .null])),
        (#"${{ match(42, '\d') }}"#, .list([.string("4")])),
        (#"${{ match(null, 'a') }}"#, .null),
        (#"${{ match('ÄÖ-ü', '(?i)ö-(Ü)')[1] }}"#, .string("ü")),
        (#"${{ xpath('<a><b>1</b><b>2</b></a>', '//b') }}"#, .list([.string("1"), .string("2")])),
        (#"${{ xpath('<a><b>1</b><b>2</b></a>', 'sum(//b)') }}"#, .int(3)),
        (#"${{ xpath(null, '//b') }}"#, .null),
        (
            #"${{ jsonpath(from_json('{"items":[{"id":1,"n":3},{"id":2,"n":9}]}'), '$.items[?@.n > 5].id') }}"#,
            .list([.int(2)])
        ),
        (#"${{ jsonpath(from_json('{"a":[1,2]}'), '$.b') }}"#, .list([])),
        (#"${{ jsonpath(null, '$') }}"#, .list([])),
        // An absent field reads as null, whose length is 0 (grammar.md §10.9).
        (#"${{ length(null) }}"#, .int(0)),
        (#"${{ length(from_json('{"a":1}').items) }}"#, .int(0)),
    ])
    func evaluatesMatchAndXPath(expression: String, expected: Value) throws {
        #expect(try evaluate("'\(expression.replacingOccurrences(of: "'", with: "''"))'") == expected)
    }

    @Test(arguments: [
        (#"${{ match(from_json('[1]'), 'a') }}"#, "`match` reads a text, found a list"),
        (
            #"${{ xpath('not xml', '/') }}"#,
            "`xpath` cannot read its text as XML: expected `<` starting the root element at line 1, column 1"
        ),
        (#"${{ match('a', from_json('1')) }}"#, "`match` takes a regular expression as a string, found a number"),
        (#"${{ length(from_json('1')) }}"#, "`length` takes a string, a list or an object, found a number"),
        (#"${{ match('a', from_json('"("')) }}"#, "invalid regular expression `(`: expected ')'"),
        (
            #"${{ jsonpath(from_json('[]'), from_json('"$[?@.a"')) }}"#,
            "invalid JSONPath `$[?@.a`: expected `,` or `]`, found the end of the query at character 7"
        ),
        (#"${{ jsonpath(from_json('[]'), 1) }}"#, "`jsonpath` takes a JSONPath query as a string, found a number"),
        (
            #"${{ xpath('<a/>', from_json('"//"')) }}"#,
            "invalid XPath `//`: expected a step (a name, `*`, `text()`, `node()`, `.` or `..`), found the end of the expression at character 3"
        ),
    ])
    func reportsRunTimeProblemsClearly(expression: String, message: String) throws {
        do {
            let value = try evaluate("'\(expression.replacingOccurrences(of: "'", with: "''"))'")
            Issue.record("expected an error, got \(value)")
        } catch let error as EvaluationError {
            #expect(error.message == message)
        }
    }
}

@Suite struct RequiredInputTests {
    private func resolve(_ inputs: String, environment: [String: String], overrides: [(String, String)] = [])
        throws -> Result<RunInputs, InputErrors>
    {
        let parsed = PlanParser.parse(
            SourceFile(
                path: "t.yaml",
                text: "reqplan: 1\ninputs:\n\(inputs)\nsteps: { a: { request: { url: \"http://h\" } } }\n"))
        let plan = try #require(parsed.plan)
        #expect(!parsed.hasErrors, "\(parsed.diagnostics.map(\.message))")
        return InputResolver.resolve(
            plan: plan, overrides: overrides.map { (name: $0.0, value: $0.1) }, environment: environment)
    }

    @Test(arguments: [[:], ["TOKEN": ""]])
    func anUnsetOrEmptyVariableOfARequiredInputIsAnError(environment: [String: String]) throws {
        guard
            case .failure(let errors) = try resolve("  token: { env: TOKEN, required: true }", environment: environment)
        else {
            Issue.record("a required input without a value was accepted")
            return
        }
        let diagnostic = try #require(errors.diagnostics.first)
        #expect(diagnostic.code == .missingInput)
        #expect(
            diagnostic.message
                == "input `token` is required, but the environment variable `TOKEN` \(environment.isEmpty ? "is not set" : "is empty")"
        )
        #expect(diagnostic.range?.start == SourceLocation(line: 3, column: 3))
        #expect(diagnostic.notes.first?.range?.start == SourceLocation(line: 3, column: 34))
    }

    @Test func aRequiredInputTakesItsValueFromTheVariableOrTheCommandLine() throws {
        let fromEnvironment = try resolve("  token: { env: TOKEN, required: true }", environment: ["TOKEN": "t"])
        #expect((try? fromEnvironment.get())?.values["token"] == .string("t"))
        let fromCommandLine = try resolve(
            "  token: { env: TOKEN, required: true }", environment: [:], overrides: [("token", "")])
        #expect((try? fromCommandLine.get())?.values["token"] == .string(""))
    }

    @Test func anInputThatIsNotRequiredIsNullWithoutAValue() throws {
        let result = try resolve("  token: { env: TOKEN }\n  tenant: { required: false }", environment: [:])
        let values = try result.get().values
        #expect(values["token"] == .null)
        #expect(values["tenant"] == .null)
        #expect(throws: InputErrors.self) { try self.resolve("  tenant:", environment: [:]).get() }
    }
}

@Suite struct CredentialInputTests {
    /// An input a password or token reads is a secret before any request is built, so a step that
    /// shows it in a URL first is redacted too; the user name and other inputs are not.
    @Test func inputsReadByAPasswordOrATokenAreSecretsFromTheStart() throws {
        let parsed = PlanParser.parse(
            SourceFile(
                path: "t.yaml",
                text: """
                    reqplan: 1
                    inputs:
                      user: { default: alice }
                      password: { default: Pw-1234 }
                      token: { default: tok-5678 }
                      page: { default: home }
                      nothing: { type: number, required: false }
                    defaults: { auth: { bearer: "${{ inputs.token }}" } }
                    steps:
                      shown: { request: { url: "http://h/${{ inputs.password }}/${{ inputs.page }}" } }
                      login:
                        request:
                          url: http://h/login
                          auth: { basic: { username: "${{ inputs.user }}", password: "${{ inputs.password }}" } }
                    """))
        let plan = try #require(parsed.plan)
        #expect(plan.inputsReadAsCredentials == ["password", "token"])
        let inputs = try InputResolver.resolve(plan: plan, overrides: [], environment: [:]).get()
        #expect(Set(inputs.secrets) == ["Pw-1234", "tok-5678"])
    }
}

/// Numbers at their limits (HOSTILE.md, "Numbers"): whole numbers are sent with the digits they were written
/// with, whatever their size; an infinity or NaN is refused where it would be sent, located at its value.
@Suite struct NumberLiteralTests {
    @Test func wholeNumbersKeepTheirDigitsInABodyAndAQuery() throws {
        let request = try buildRequest(
            planHeader + """
                steps:
                  a:
                    request:
                      method: POST
                      url: /a
                      query: { id: 18446744073709551615, n: -99999999999999999999999 }
                      json: { a: 18446744073709551615, b: -99999999999999999999999, c: 9223372036854775807, d: +0012 }
                """)
        #expect(
            String(decoding: try #require(request.body), as: UTF8.self)
                == #"{"a":18446744073709551615,"b":-99999999999999999999999,"c":9223372036854775807,"d":12}"#)
        #expect(request.url.text.hasSuffix("?id=18446744073709551615&n=-99999999999999999999999"))
    }

    @Test func wholeNumbersFromAnInputsFileAndTheCommandLineKeepTheirDigits() throws {
        let inputs = try InputsFile.read(
            atPath: try temporaryFile("big: 99999999999999999999999\n"), limits: ParseLimits()
        ).get()
        let big = try #require(inputs.values["big"])
        #expect(big == .largeInt("99999999999999999999999"))
        #expect(InputResolver.convert("18446744073709551615", to: .number) == .largeInt("18446744073709551615"))
        let request = try buildRequest(
            planHeader + """
                inputs: { big: { type: number } }
                steps:
                  a: { request: { method: POST, url: /a, json: { big: "${{ inputs.big }}" } } }
                """, inputs: ["big": big])
        #expect(String(decoding: try #require(request.body), as: UTF8.self) == #"{"big":99999999999999999999999}"#)
    }

    @Test(arguments: [
        ("json: { a: [1, .inf] }", ".inf", "`.inf`"),
        ("json: { a: -.inf }", "-.inf", "`-.inf`"),
        ("query: { a: .nan }", ".nan", "`.nan`"),
        ("headers: { X-A: \"${{ inputs.x }}\" }", "inputs.x", "`.inf`"),
    ])
    func aNonFiniteNumberIsRefusedWhereItWouldBeSent(_ part: String, _ located: String, _ named: String) throws {
        let yaml =
            planHeader + """
                inputs: { x: { type: number } }
                steps:
                  a: { request: { method: POST, url: /a, \(part) } }
                """
        do {
            _ = try buildRequest(yaml, inputs: ["x": .double(.infinity)])
            Issue.record("\(part) was sent")
        } catch let error as EvaluationError {
            #expect(error.message.contains(named) && error.message.contains("cannot be sent"), "\(error.message)")
            let line = try #require(yaml.split(separator: "\n", omittingEmptySubsequences: false).last)
            let column = try #require(line.range(of: located)).lowerBound.utf16Offset(in: line) + 1
            #expect(error.range?.start.column == column, "\(String(describing: error.range)) for \(part)")
        }
    }

    private func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("numbers-\(UUID().uuidString).yaml")
        try Data(text.utf8).write(to: url)
        return url.path
    }
}

/// An input that takes any value (an Arazzo input whose schema names no type, or one an open schema does not
/// list): a command-line value is JSON when it is JSON, else the text; an inputs file's value is kept as it is.
@Suite struct AnyTypeInputTests {
    @Test(arguments: [
        ("800", Value.int(800)), ("true", .bool(true)), (#"{"a": 1}"#, .object([.init("a", .int(1))])),
        ("pet 1", .string("pet 1")), ("007", .string("007")), ("", .string("")),
    ])
    func aCommandLineValueIsJSONWhenItIsJSON(text: String, expected: Value) throws {
        let parsed = PlanParser.parse(
            SourceFile(
                path: "t.yaml",
                text: "reqplan: 1\ninputs:\n  price: {}\nsteps: { a: { request: { url: \"http://h\" } } }\n"))
        var plan = try #require(parsed.plan)
        plan.inputs[0].acceptsAnyType = true
        let inputs = try InputResolver.resolve(
            plan: plan, overrides: [(name: "price", value: text)], environment: [:]
        ).get()
        #expect(inputs.values["price"] == expected)
        // Without it, the input is a string, and `800` stays the text it is.
        plan.inputs[0].acceptsAnyType = false
        let typed = try InputResolver.resolve(plan: plan, overrides: [(name: "price", value: text)], environment: [:])
            .get()
        #expect(typed.values["price"] == .string(text))
        // A file's value of any type is taken.
        plan.inputs[0].acceptsAnyType = true
        let fromFile = try InputResolver.resolve(
            plan: plan, overrides: [], file: ["price": .list([])], environment: [:]
        )
        .get()
        #expect(fromFile.values["price"] == .list([]))
    }
}

@Suite struct RepeatedBuildTests {
    /// A builder keeps the last URL it parsed, for a load's iterations: a builder asked for URLs in turn (an
    /// input per iteration) must give each its own, credentials and all, and never the one before.
    @Test func aBuilderUsedAgainGivesEachURLItsOwnParse() throws {
        let graph = try makeGraph(
            planHeader + """
                inputs: { target: { type: string } }
                steps:
                  a:
                    request: { url: "${{ inputs.target }}" }
                """)
        let node = try #require(graph.node("a"))
        let spec = try #require(node.step.request)
        let builder = RequestBuilder(
            defaults: graph.plan.defaults,
            files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
        let targets = [
            "http://one.example/a?x=1", "http://one.example/a?x=1", "https://u:p@two.example:8443/b",
            "http://one.example/a?x=1", "http://[::1]:8080/c",
        ]
        for target in targets {
            let context = EvaluationContext(inputs: ["target": .string(target)], environment: [:], step: { _ in nil })
            let request = try builder.build(spec, in: context)
            let fresh = try RequestURL(parsing: target)
            #expect(request.url == fresh)
        }
        // A URL that cannot be sent is refused every time, not taken from the last good parse.
        let bad = EvaluationContext(inputs: ["target": .string("ftp://x/")], environment: [:], step: { _ in nil })
        #expect(throws: EvaluationError.self) { try builder.build(spec, in: bad) }
        #expect(throws: EvaluationError.self) { try builder.build(spec, in: bad) }
    }
}
