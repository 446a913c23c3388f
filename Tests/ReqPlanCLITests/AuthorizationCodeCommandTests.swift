import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan run` with the `authorization_code` grant (PKCE, S256) against django-oauth-toolkit, a real provider,
/// its sign-in and consent pages driven by headless Chromium through Selenium (`ConsentBrowser`, as `$BROWSER`
/// with `--open-browser`): many requests, one sign-in; a confidential client found by OpenID Connect discovery
/// on a fixed `redirect_port`, whose listener first gets garbage; a user who clicks Cancel; no browser at all.
/// No state, code, verifier, token or secret is in any output.
@Suite(.timeSensitive) struct AuthorizationCodeCommandTests {
    /// A plan whose 20 requests to the provider's resource need a token of `grant` (the `oauth2` keys).
    static func plan(_ provider: DjangoOAuthProvider?, grant: String) -> String {
        """
        reqplan: 1
        name: pkce
        inputs:
          client_secret: { env: CLIENT_SECRET }
        defaults:
          auth:
            oauth2:
              grant: authorization_code
        \(grant.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        steps:
          me:
            for_each: \(Array(1...20))
            concurrency: 8
            request: { url: "\(provider?.resourceURL ?? "http://127.0.0.1:9/api/me")" }
            expect: { body: { user: alice } }
        """
    }

    /// The `oauth2` keys of the provider's public client, its endpoints given.
    static func publicClient(_ provider: DjangoOAuthProvider) -> String {
        """
        authorization_url: \(provider.authorizationURL)
        token_url: \(provider.tokenURL)
        client_id: \(DjangoOAuthProvider.publicCodeClient.id)
        scope: [read]
        """
    }

    static let tokenGranted = "\"POST /o/token/ HTTP/1.1\" 200"

    /// The sign-in address the run printed (`http://127.0.0.1:PORT/`).
    static func address(in stderr: String) -> String? {
        stderr.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+\//).map { String($0.output) }
    }

    @Test(ExternalServers.needed(.oauthProvider, .browser))
    func aUserSignsInOnceForEveryRequestAndNoSecretIsShown() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let browser = try ConsentBrowser(.allow)
        let file = try CommandRunner.temporaryPlan(
            Self.plan(provider, grant: Self.publicClient(provider)))
        let folder = file.deletingLastPathComponent()
        let kinds = ["json", "junit", "trace", "har", "html"]
        let reports = kinds.flatMap { ["--report", "\($0):\(folder.appendingPathComponent("report.\($0)").path)"] }
        let started = ContinuousClock.now
        let result = try await CommandRunner.run(
            ["run", file.path, "--open-browser", "--verbose", "--progress", "lines"] + reports,
            environment: ["BROWSER": browser.browserCommand], within: .seconds(240))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)\n\(browser.seen)")
        #expect(result.stderr.contains("To authorize the run, open this address in a browser"), "\(result.stderr)")
        #expect(Self.address(in: result.stderr) != nil, "\(result.stderr)")
        // The run may end before the browser has read the page its listener answered with.
        #expect(await browser.waitUntilEnded(), "\(browser.seen)")
        #expect(browser.seen.contains("page: reqplan: the authorization was received"), "\(browser.seen)")
        // One sign-in and one token for the 20 requests. (The authorization endpoint is asked twice for it: before
        // the sign-in, which sends the browser to the login page, and after, from it.)
        let states = Set(
            provider.authorizationLog("authorizations.log").compactMap { $0.firstMatch(of: /state=([^&]+)/)?.output.1 })
        #expect(states.count == 1, "\(provider.authorizationLog("authorizations.log"))")
        #expect(provider.log.components(separatedBy: Self.tokenGranted).count - 1 == 1, "\(provider.log)")
        let authorization = try #require(provider.authorizationLog("authorizations.log").first)
        #expect(authorization.contains("code_challenge_method=S256") && authorization.contains("response_type=code"))

        // The secrets of the flow, as the browser and the provider saw them.
        let state = try #require(browser.logged("state"))
        let code = try #require(browser.logged("code"))
        #expect(authorization.contains("state=\(state)"))
        let exchange = try #require(provider.authorizationLog("exchanges.log").first)
        let form = Dictionary(
            exchange.split(separator: "&").map {
                let pair = $0.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                return (pair[0], pair.count > 1 ? pair[1] : "")
            }, uniquingKeysWith: { first, _ in first })
        let verifier = try #require(form["code_verifier"])
        #expect(
            verifier.count == 43 && form["code"] == code && form["client_id"] == DjangoOAuthProvider.publicCodeClient.id
        )
        let tokens = try await OAuthCommandTests.grantedTokens(provider)
        #expect(tokens.count == 1)
        var outputs = ["stdout": result.stdout, "stderr": result.stderr]
        for kind in kinds {
            outputs["\(kind) report"] = try String(
                contentsOf: folder.appendingPathComponent("report.\(kind)"), encoding: .utf8)
        }
        for (name, output) in outputs {
            for secret in [state, code, verifier] + tokens {
                #expect(!output.contains(secret), "a secret of the flow is in \(name)")
            }
        }
        try await SecretValueTests.expectReportsParse(in: folder)
        print("authorization code, public client, through Chromium: \(ContinuousClock.now - started)")
    }

    @Test(ExternalServers.needed(.oauthProvider, .browser))
    func garbageToTheListenerDoesNotEndTheWaitAndAConfidentialClientIsFoundByDiscovery() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let port = try ExternalServers.freePorts(1)[0]
        let file = try CommandRunner.temporaryPlan(
            Self.plan(
                provider,
                grant: """
                    issuer: \(provider.issuer)
                    client_id: \(DjangoOAuthProvider.confidentialCodeClient.id)
                    client_secret: "${{ inputs.client_secret }}"
                    scope: read
                    redirect_port: \(port)
                    """))
        let running = try CommandRunner.start(
            ["run", file.path, "--progress", "none"],
            environment: ["CLIENT_SECRET": DjangoOAuthProvider.confidentialCodeClient.secret])
        #expect(await running.waitForStandardError(containing: "127.0.0.1:\(port)/", within: .seconds(60)))
        // Another path, no state, a wrong one, two of them, a POST, a 1 MB header, a connection that says nothing,
        // and bytes that are not HTTP: each is answered 400 (or closed), and the run goes on waiting.
        let garbage = try await CommandRunner.run(
            ["python3", "-c", Self.garbage, String(port)], executable: URL(fileURLWithPath: "/usr/bin/env"),
            within: .seconds(60))
        #expect(garbage.status == 0, "\(garbage.stdout)\(garbage.stderr)")
        #expect(
            garbage.stdout == "400 400 400 400 400 400 400 400\n"
                || garbage.stdout == "400 400 400 400 400 400 closed 400\n",
            "\(garbage.stdout)")
        #expect(running.isRunning)
        let browser = try ConsentBrowser(.allow)
        let consented = try await browser.open("http://127.0.0.1:\(port)/")
        #expect(consented, "\(browser.seen)")
        let result = await running.finish(within: .seconds(120))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(provider.log.components(separatedBy: Self.tokenGranted).count - 1 == 1, "\(provider.log)")
        #expect(!result.stderr.contains(DjangoOAuthProvider.confidentialCodeClient.secret))
    }

    /// Sends garbage to the listener on the port given; prints the status of each answer (`closed` for none).
    static let garbage = #"""
        import socket, sys, time
        port = int(sys.argv[1])
        def ask(data, pause=0):
            s = socket.create_connection(("127.0.0.1", port), timeout=20)
            try:
                s.sendall(data)
                if pause: time.sleep(pause)
                answer = b""
                while not answer.endswith(b"\n") or b"\r\n\r\n" not in answer:
                    chunk = s.recv(65536)
                    if not chunk: break
                    answer += chunk
                return answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/1.1 ") else "closed"
            except (ConnectionError, socket.timeout):
                return "closed"
            finally:
                s.close()
        idle = socket.create_connection(("127.0.0.1", port))   # says nothing, stays open meanwhile
        results = [
            ask(b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"),
            ask(b"GET /callback?code=abc HTTP/1.1\r\nHost: x\r\n\r\n"),
            ask(b"GET /callback?code=abc&state=wrong HTTP/1.1\r\nHost: x\r\n\r\n"),
            ask(b"GET /callback?code=abc&state=a&state=b HTTP/1.1\r\nHost: x\r\n\r\n"),
            ask(b"GET /callback?error=access_denied HTTP/1.1\r\nHost: x\r\n\r\n"),
            ask(b"POST /callback HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"),
            ask(b"GET /callback HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"),
            ask(b"\x00\x01\x02 not http at all\r\n\r\n"),
        ]
        idle.close()
        print(" ".join(results))
        """#

    @Test(ExternalServers.needed(.oauthProvider, .browser))
    func aUserWhoRefusesFailsTheStepAtOnce() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let browser = try ConsentBrowser(.deny)
        let file = try CommandRunner.temporaryPlan(
            Self.plan(provider, grant: Self.publicClient(provider)))
        let result = try await CommandRunner.run(
            ["run", file.path, "--open-browser", "--progress", "none"],
            environment: ["BROWSER": browser.browserCommand], within: .seconds(180))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(!result.killedAfterTimeout)
        #expect(
            result.stderr.contains("no token for `auth`: the authorization was refused: access_denied"),
            "\(result.stderr)\n\(browser.seen)")
        #expect(await browser.waitUntilEnded(), "\(browser.seen)")
        #expect(
            browser.seen.contains("page: reqplan: the authorization was refused (access_denied)"), "\(browser.seen)")
        #expect(provider.log.components(separatedBy: "POST /o/token/").count == 1, "\(provider.log)")
    }

    /// No browser ever comes: the wait runs out, and an interrupt ends the wait at once. (No provider is needed:
    /// nothing is sent before the user signs in.)
    @Test func withoutABrowserTheWaitRunsOutAndAnInterruptEndsIt() async throws {
        let port = try ExternalServers.freePorts(1)[0]
        let file = try CommandRunner.temporaryPlan(
            Self.plan(
                nil,
                grant: """
                    authorization_url: http://127.0.0.1:9/o/authorize/
                    token_url: http://127.0.0.1:9/o/token/
                    client_id: cli
                    redirect_port: \(port)
                    """))
        let started = ContinuousClock.now
        let result = try await CommandRunner.run(
            ["run", file.path, "--authorization-timeout", "2s", "--progress", "none"], within: .seconds(60))
        let took = ContinuousClock.now - started
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stderr.contains(
                "no token for `auth`: no authorization came within 2s: the browser never came back to "
                    + "http://127.0.0.1:\(port)/callback"),
            "\(result.stderr)")
        #expect(took < .seconds(20), "\(took)")

        let running = try CommandRunner.start(["run", file.path, "--progress", "none"])
        #expect(await running.waitForStandardError(containing: "Waiting up to 5m", within: .seconds(30)))
        #expect(ExternalServers.isListening(port))
        let interrupted = ContinuousClock.now
        kill(running.pid, SIGINT)
        let ended = await running.finish(within: .seconds(30))
        #expect(ContinuousClock.now - interrupted < .seconds(5))
        #expect(ended.status == 130 && !ended.killedAfterTimeout, "\(ended.stdout)\(ended.stderr)")
        // The listener is closed: nothing answers at its address any more.
        #expect(!ExternalServers.isListening(port))
    }

    /// The grant from the description: an `oauth2` scheme whose only flow is `authorizationCode`, given just the
    /// client's id under `credentials:`; the operation's requirement names the scope. No `auth` in the plan.
    @Test(ExternalServers.needed(.oauthProvider, .browser))
    func aDescriptionsAuthorizationCodeFlowSignsTheUserIn() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let browser = try ConsentBrowser(.allow)
        let description = """
            openapi: 3.0.3
            info: { title: The provider's own resource, version: "1" }
            servers: [{ url: "\(provider.url)" }]
            components:
              securitySchemes:
                provider:
                  type: oauth2
                  flows:
                    authorizationCode:
                      authorizationUrl: /o/authorize/
                      tokenUrl: /o/token/
                      scopes: { read: Read the user's data }
            paths:
              /api/me:
                get:
                  operationId: me
                  security: [{ provider: [read] }]
                  responses: { "200": { description: the user } }
            """
        let file = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            openapi:
              api:
                file: api.yaml
                credentials: { provider: { client_id: \(DjangoOAuthProvider.publicCodeClient.id) } }
            defaults: { base_url: "\(provider.url)" }
            steps:
              me:
                request: { operation: api.me }
                expect: { body: { user: alice } }
            """)
        try description.write(
            to: file.deletingLastPathComponent().appendingPathComponent("api.yaml"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(
            ["run", file.path, "--open-browser", "--progress", "none"],
            environment: ["BROWSER": browser.browserCommand], within: .seconds(240))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)\n\(browser.seen)")
        #expect(provider.log.components(separatedBy: Self.tokenGranted).count - 1 == 1, "\(provider.log)")
        let authorization = try #require(provider.authorizationLog("authorizations.log").first)
        #expect(authorization.contains("scope=read"), "\(authorization)")
    }
}
