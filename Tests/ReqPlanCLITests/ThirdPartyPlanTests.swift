import Foundation
import ReqPlanTestSupport
import Testing

/// Plans against httpbin (PyPI `httpbin` under gunicorn: the server HTTP client libraries test
/// themselves against), run by the built binary (issue 10, "Done when"): basic and bearer auth with
/// no credential in any output; a repeated response header as one value; `follow_redirects: false`
/// asserting a 302 and its `Location`; values taken out of HTML with `match()` and `xpath()` and out
/// of XML with `xpath()`, flowing into the next request.
@Suite(.timeSensitive) struct ThirdPartyPlanTests {
    /// Neither input is `secret`: the credentials are hidden because they are credentials.
    static let password = "Pw-Heron-26"
    static let token = "Tok-Lynx-84"

    static let authPlan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          authority: { default: "127.0.0.1:1" }
          password: { default: "\(password)" }
          token: { default: "\(token)" }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          basic:
            request:
              url: /basic-auth/alice/${{ inputs.password }}
              auth: { basic: { username: alice, password: "${{ inputs.password }}" } }
            expect: { body: { authenticated: true, user: alice } }
          wrong-password:
            request:
              url: /basic-auth/alice/${{ inputs.password }}
              auth: { basic: { username: alice, password: not-it } }
            expect: { status: 401 }
          url-credentials:
            request: { url: "http://bob:${{ inputs.password }}@${{ inputs.authority }}/basic-auth/bob/${{ inputs.password }}" }
            expect: { body: { authenticated: true } }
          bearer:
            request: { url: /bearer, auth: { bearer: "${{ inputs.token }}" } }
            expect: { body: { authenticated: true } }
          no-bearer:
            request: { url: /bearer }
            expect: { status: 401 }
          headers:
            request: { url: /headers, auth: { bearer: "${{ inputs.token }}" } }
          failing:
            request: { url: /status/500, auth: { basic: { username: alice, password: "${{ inputs.password }}" } } }
        outputs:
          echoed_token: ${{ steps.bearer.body.token }}
          echoed_headers: ${{ steps.headers.body.headers }}
        """

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test(ExternalServers.needed(.httpbin))
    func basicAndBearerAuthWorkAndNoCredentialAppearsInAnyOutput() async throws {
        let httpbin = try await Httpbin.shared()
        let file = try CommandRunner.temporaryPlan(Self.authPlan)
        let authority = String(httpbin.url.dropFirst("http://".count))
        let outputs = try await EveryOutput.collect(
            plan: file, arguments: ["--input", "base_url=\(httpbin.url)", "--input", "authority=\(authority)"],
            environment: ["no_proxy": "*"], status: 1)
        let text = outputs["text stderr"] ?? ""
        for step in ["basic", "wrong-password", "url-credentials", "bearer", "no-bearer", "headers"] {
            #expect(text.contains("✓ \(step)"), "\(step) should pass: \(text)")
        }
        #expect(text.contains("✗ failing"))
        #expect(
            outputs["json stdout"]?.contains("\"echoed_token\": \"***\"") == true, "\(outputs["json stdout"] ?? "")")
        let forms = [
            Self.password, Self.base64("alice:\(Self.password)"), Self.base64("bob:\(Self.password)"), Self.token,
            "Bearer \(Self.token)",
        ]
        for (name, output) in outputs {
            for form in forms {
                #expect(!output.contains(form), "`\(form)` leaks in \(name)")
            }
        }
    }

    static let responsePlan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          multi:
            request: { url: /response-headers, query: { X-Multi: [a, b] } }
            expect: { headers: { X-Multi: "a, b" } }
          redirect:
            request: { url: "/redirect-to?url=/get&status_code=302", follow_redirects: false }
            expect: { status: 302, headers: { Location: /get } }
          followed:
            request: { url: "/redirect-to?url=/get&status_code=302" }
            expect: { status: 200, body: { url: { matches: "/get$" } } }
          form:
            request: { url: /forms/post }
          order:
            request:
              method: POST
              url: ${{ xpath(steps.form.body, 'string(//form/@action)') }}
              form:
                size: ${{ match(steps.form.body, 'name=size value="([a-z]+)"')[1] }}
                topping: ${{ xpath(steps.form.body, "//input[@name='topping']/@value") }}
            expect: { body: { form.size: small } }
          slides:
            request: { url: /xml }
        outputs:
          multi: ${{ steps.multi.headers['x-multi'] }}
          location: ${{ steps.redirect.headers.location }}
          size: ${{ steps.order.body.form.size }}
          toppings: ${{ steps.order.body.form.topping }}
          title: ${{ xpath(steps.slides.body, 'string(/slideshow/@title)') }}
          titles: ${{ xpath(steps.slides.body, '//slide/title') }}
          slide_count: ${{ xpath(steps.slides.body, 'count(//slide)') }}
          second_slide: ${{ xpath(steps.slides.body, 'string(//slide[2]/title)') }}
        """

    @Test(ExternalServers.needed(.httpbin))
    func repeatedHeadersRedirectsMatchAndXPathAgainstHttpbin() async throws {
        let httpbin = try await Httpbin.shared()
        let file = try CommandRunner.temporaryPlan(Self.responsePlan)
        let result = try await CommandRunner.run(
            [
                "run", file.path, "--input", "base_url=\(httpbin.url)", "--output", "json", "--verbose",
                "--progress", "none",
            ],
            environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let outputs = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(outputs["multi"] as? String == "a, b")
        #expect(outputs["location"] as? String == "/get")
        #expect(outputs["size"] as? String == "small")
        #expect(outputs["toppings"] as? [String] == ["bacon", "cheese", "onion", "mushroom"])
        #expect(outputs["title"] as? String == "Sample Slide Show")
        #expect(outputs["slide_count"] as? Int == 2)
        #expect(outputs["second_slide"] as? String == "Overview")
        #expect(outputs["titles"] as? [String] == ["Wake up to WonderWidgets!", "Overview"])
        // --verbose shows the repeated header once, as expressions and expect see it.
        #expect(result.stderr.contains("< x-multi: a, b\n"), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "x-multi:").count == 2)
    }

    @Test(ExternalServers.needed(.httpbin))
    func longCookieValuesAreHiddenAndShortPreferencesShown() async throws {
        let httpbin = try await Httpbin.shared()
        let session = "sess-7f3a9c2e41"
        let file = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            inputs:
              base_url: { default: "http://127.0.0.1:1" }
            steps:
              set:
                request: { url: "${{ inputs.base_url }}/cookies/set?lang=en&session=\(session)", follow_redirects: false }
                expect: { status: 302 }
              echo:
                needs: [set]
                request: { url: "${{ inputs.base_url }}/cookies" }
            outputs:
              lang: ${{ steps.set.cookies.lang }}
              session: ${{ steps.set.cookies.session }}
              sent: ${{ steps.echo.body.cookies }}
            """)
        let result = try await CommandRunner.run(
            [
                "run", file.path, "--input", "base_url=\(httpbin.url)", "--output", "json", "--verbose",
                "--progress", "none",
            ],
            environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        // httpbin sets the cookie the URL names, so the value is in the first request line, logged before the
        // response made it a cookie; from the response on it is hidden.
        let afterRequest = result.stderr.components(separatedBy: "\n").dropFirst().joined(separator: "\n")
        #expect(result.stderr.hasPrefix("> set: GET "), "\(result.stderr)")
        #expect(!result.stdout.contains(session) && !afterRequest.contains(session), "\(result.stderr)")
        #expect(afterRequest.contains("< set-cookie: ***"))
        let outputs = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(outputs["lang"] as? String == "en")
        #expect(outputs["session"] as? String == "***")
        #expect(outputs["sent"] as? [String: String] == ["lang": "en", "session": "***"])
    }

    /// The failure note of a request whose response did not meet its expectation shows the start of the body
    /// that came back (a secret it echoes as `***`) and where the plan writes the expectation:
    /// `Tests/Fixtures/run-golden/failure-excerpt.expected` (`RECORD_GOLDEN=1` rewrites it). The request sets its
    /// own `User-Agent`: with reqplan's, the echoed body, and so where its excerpt ends, moved with the version.
    @Test(ExternalServers.needed(.httpbin))
    func failureNoteShowsTheResponseAndTheExpectation() async throws {
        let httpbin = try await Httpbin.shared()
        let folder = try ExternalServers.makeTemporaryFolder("excerpt")
        let file = folder.appendingPathComponent("failure-excerpt.yaml")
        try """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          token: { default: "\(Self.token)", secret: true }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          slideshow:
            request: { url: /json }
            expect:
              status: 201
          echo:
            request: { url: "/anything?token=${{ inputs.token }}", headers: { User-Agent: golden } }
            expect:
              body:
                method: POST
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(
            ["run", file.path, "--input", "base_url=\(httpbin.url)", "--progress", "none", "--color", "never"],
            environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stderr.contains(Self.token), "\(result.stderr)")
        let authority = String(httpbin.url.dropFirst("http://".count))
        let shown = result.stderr.replacingOccurrences(of: folder.path + "/", with: "")
            .replacingOccurrences(of: httpbin.url, with: "http://HTTPBIN")
            .replacingOccurrences(of: authority, with: "HTTPBIN")
            .replacing(#/in [0-9.]+s/#, with: "in TIME")
        let expected = CommandRunner.packageRoot.appendingPathComponent(
            "Tests/Fixtures/run-golden/failure-excerpt.expected")
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                at: expected.deletingLastPathComponent(), withIntermediateDirectories: true)
            try shown.write(to: expected, atomically: true, encoding: .utf8)
            return
        }
        #expect(shown == (try String(contentsOf: expected, encoding: .utf8)))
    }
}
