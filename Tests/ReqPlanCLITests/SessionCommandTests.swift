import Foundation
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanTestSupport
import Testing

/// `reqplan run` against servers not written here (issue 10, "Done when"): a login plan whose
/// session cookie is sent back with no `Cookie` header written, reused by a second plan through
/// `--cookie-jar` (and exchanged with curl's cookie files); the same plan through tinyproxy
/// given by `HTTP_PROXY`/`HTTPS_PROXY` and by `--proxy`; HTTPS with `--cacert`, and mTLS with
/// `--cert`/`--key`.
@Suite(.timeSensitive) struct SessionCommandTests {
    static let login = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          anonymous:
            request: { url: /me }
            expect: { status: 401 }
          login:
            needs: [anonymous]
            request: { method: POST, url: /login }
          me:
            needs: [login]
            request: { url: /me }
            expect: { body: { user: alice } }
        outputs:
          user: ${{ steps.me.body.user }}
        """

    static let reuse = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        steps:
          me:
            request: { url: "${{ inputs.base_url }}/me" }
            expect: { body: { user: alice } }
        """

    /// No host the machine's environment would let bypass a proxy (lower case wins).
    static let noProxy = ["no_proxy": ""]

    private func run(_ plan: String, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> CommandRunner.Output
    {
        let file = try CommandRunner.temporaryPlan(plan)
        let result = try await CommandRunner.run(
            ["run", file.path] + arguments,
            environment: Self.noProxy.merging(environment) { $1 },
            within: .seconds(60))
        #expect(!result.killedAfterTimeout)
        return result
    }

    // MARK: Sessions

    @Test(ExternalServers.needed(.nginx, .openssl))
    func aLoginPlanGetsItsSessionAndASecondPlanReusesItThroughTheCookieJar() async throws {
        let nginx = try await Nginx.shared()
        let jar = try ExternalServers.makeTemporaryFolder("jar").appendingPathComponent("cookies.txt")
        let first = try await run(Self.login, ["--input", "base_url=\(nginx.plainURL)", "--cookie-jar", jar.path])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains(#"user: "alice""#) || first.stdout.contains("alice"))
        let saved = try String(contentsOf: jar, encoding: .utf8)
        #expect(saved.hasPrefix("# Netscape HTTP Cookie File\n"))
        #expect(saved.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t\(nginx.sessionToken)\n"))
        let attributes = try FileManager.default.attributesOfItem(atPath: jar.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let second = try await run(Self.reuse, ["--input", "base_url=\(nginx.plainURL)", "--cookie-jar", jar.path])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        let without = try await run(Self.reuse, ["--input", "base_url=\(nginx.plainURL)"])
        #expect(without.status == 1, "without the jar, /me answers 401")
    }

    @Test(ExternalServers.needed(.nginx, .openssl))
    func aStepWithCookiesOffKeepsNothingYetReadsTheCookiesItWasSet() async throws {
        let nginx = try await Nginx.shared()
        let plan = """
            reqplan: 1
            inputs:
              base_url: { default: "http://127.0.0.1:1" }
            defaults:
              base_url: ${{ inputs.base_url }}
            steps:
              login:
                cookies: false
                request: { method: POST, url: /login }
              me:
                needs: [login]
                request: { url: /me }
                expect: { status: 401 }
              by_hand:
                needs: [login]
                request: { url: /me, headers: { Cookie: "session=${{ steps.login.cookies.session }}" } }
                expect: { body: { user: alice } }
            outputs:
              session: ${{ steps.login.cookies.session }}
            """
        let result = try await run(plan, ["--input", "base_url=\(nginx.plainURL)", "--output", "json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("***"), "\(result.stdout)")
        #expect(!result.stdout.contains(nginx.sessionToken) && !result.stderr.contains(nginx.sessionToken))
    }

    @Test(ExternalServers.needed(.nginx, .openssl, .curl))
    func cookieFilesPassBetweenCurlAndReqplan() async throws {
        let nginx = try await Nginx.shared()
        let folder = try ExternalServers.makeTemporaryFolder("jar")
        let curlJar = folder.appendingPathComponent("curl.txt")
        // curl logs in and writes its jar; reqplan reads it.
        _ = try runCommand("curl", ["-s", "-X", "POST", "-c", curlJar.path, "\(nginx.plainURL)/login"])
        #expect(try String(contentsOf: curlJar, encoding: .utf8).contains("\tsession\t\(nginx.sessionToken)"))
        let reading = try await run(
            Self.reuse, ["--input", "base_url=\(nginx.plainURL)", "--cookie-jar", curlJar.path])
        #expect(reading.status == 0, "\(reading.stdout)\(reading.stderr)")
        // reqplan logs in and writes its jar; curl reads it.
        let ours = folder.appendingPathComponent("reqplan.txt")
        let writing = try await run(Self.login, ["--input", "base_url=\(nginx.plainURL)", "--cookie-jar", ours.path])
        #expect(writing.status == 0)
        let me = try runCommand("curl", ["-s", "-b", ours.path, "\(nginx.plainURL)/me"])
        #expect(me.output == #"{"user":"alice"}"#)
    }

    @Test(ExternalServers.needed(.nginx, .openssl))
    func aMalformedCookieJarIsALocatedErrorAndNothingIsSent() async throws {
        let nginx = try await Nginx.shared()
        let jar = try CommandRunner.temporaryPlan(
            "# Netscape HTTP Cookie File\n\n127.0.0.1\tFALSE\t/\tmaybe\t0\tsession\tx\n", name: "jar.txt")
        let marker = UUID().uuidString
        let plan = """
            reqplan: 1
            steps:
              ping: { request: { url: "\(nginx.plainURL)/json?marker=\(marker)" } }
            """
        let result = try await run(plan, ["--cookie-jar", jar.path])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "error[RP0503]: the cookie jar cannot be read: the secure field must be TRUE or FALSE, not `maybe`"),
            "\(result.stderr)")
        #expect(result.stderr.contains("--> \(jar.path):3:19"), "\(result.stderr)")
        #expect(!nginx.accessLog.contains(marker))

        // A value that would write a header line of its own: the one rule for header lines (RP0517).
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tx\rInjected: 1\n".write(
            to: jar, atomically: true, encoding: .utf8)
        let injected = try await run(plan, ["--cookie-jar", jar.path])
        #expect(injected.status == 2)
        #expect(
            injected.stderr.contains(
                "error[RP0517]: the cookie jar cannot be read: the value of cookie `session` contains a control "
                    + "character (U+000D carriage return), which cannot be sent in a header line"),
            "\(injected.stderr)")
        #expect(!nginx.accessLog.contains(marker))
    }

    @Test(ExternalServers.needed(.nginx, .openssl))
    func aCookieJarThatCannotBeReadOrSavedIsReported() async throws {
        let nginx = try await Nginx.shared()
        let folder = try ExternalServers.makeTemporaryFolder("jar")
        let unreadable = try await run(
            Self.reuse, ["--input", "base_url=\(nginx.plainURL)", "--cookie-jar", folder.path])
        #expect(unreadable.status == 2)
        #expect(
            unreadable.stderr.contains("error[RP0503]: the cookie jar cannot be read: it is a folder, not a file"),
            "\(unreadable.stderr)")
        let nowhere = folder.appendingPathComponent("missing/cookies.txt").path
        let unsaved = try await run(Self.login, ["--input", "base_url=\(nginx.plainURL)", "--cookie-jar", nowhere])
        #expect(unsaved.status == 74, "the run succeeded, the jar could not be saved")
        #expect(
            unsaved.stderr.contains(
                "error: cannot save the cookie jar to `\(nowhere)`: the folder `\(folder.path)/missing` does not exist"),
            "\(unsaved.stderr)")
    }

    @Test(ExternalServers.needed(.nginx, .openssl))
    func theSessionCookieIsInNoOutput() async throws {
        let nginx = try await Nginx.shared()
        let folder = try ExternalServers.makeTemporaryFolder("redaction")
        let report = folder.appendingPathComponent("report.json")
        let result = try await run(
            Self.login,
            [
                "--input", "base_url=\(nginx.plainURL)", "--verbose",
                "--report", "json:\(report.path)",
            ])
        #expect(result.status == 0)
        #expect(result.stderr.lowercased().contains("set-cookie: ***"), "the verbose log shows the header, redacted")
        for text in [result.stdout, result.stderr, try String(contentsOf: report, encoding: .utf8)] {
            #expect(!text.contains(nginx.sessionToken))
        }
    }

    // MARK: Proxies

    @Test(ExternalServers.needed(.nginx, .openssl, .tinyproxy))
    func theLoginPlanRunsThroughAProxyFromTheEnvironmentAndFromTheOption() async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        let ca = nginx.certificates.ca.path
        let viaEnvironment = try await run(
            Self.login, ["--input", "base_url=\(nginx.plainURL)"],
            environment: ["HTTP_PROXY": proxy.url])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stdout)\(viaEnvironment.stderr)")
        let secureViaEnvironment = try await run(
            Self.login, ["--input", "base_url=\(nginx.tlsURL)", "--cacert", ca],
            environment: ["HTTPS_PROXY": proxy.url])
        #expect(secureViaEnvironment.status == 0, "\(secureViaEnvironment.stdout)\(secureViaEnvironment.stderr)")
        let viaOption = try await run(
            Self.login,
            [
                "--input", "base_url=\(nginx.tlsURL)", "--cacert", ca,
                "--proxy", proxy.hostPort,
            ],
            environment: ["HTTPS_PROXY": "http://127.0.0.1:1"])
        #expect(viaOption.status == 0, "--proxy wins over HTTPS_PROXY: \(viaOption.stderr)")
        let requests = proxy.requests
        #expect(
            requests.prefix(3) == [
                "GET \(nginx.plainURL)/me HTTP/1.1", "POST \(nginx.plainURL)/login HTTP/1.1",
                "GET \(nginx.plainURL)/me HTTP/1.1",
            ], "absolute form: \(requests)")
        #expect(requests.dropFirst(3).contains("CONNECT 127.0.0.1:\(nginx.tlsPort) HTTP/1.1"), "\(requests)")
        #expect(requests.dropFirst(3).allSatisfy { $0.hasPrefix("CONNECT ") }, "\(requests)")

        let bypassed = try await run(
            Self.reuse,
            [
                "--input", "base_url=\(nginx.plainURL)", "--proxy", proxy.url,
                "--noproxy", "127.0.0.1",
            ])
        #expect(bypassed.status == 1, "direct to nginx without a session: 401")
        #expect(proxy.requests.count == requests.count, "--noproxy: not through the proxy")
    }

    @Test(ExternalServers.needed(.nginx, .openssl, .tinyproxy))
    func proxyCredentialsAreUsedAndInNoOutput() async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start(credentials: ("agent", "Pr0xy-S3cret"))
        defer { proxy.stop() }
        let folder = try ExternalServers.makeTemporaryFolder("redaction")
        let report = folder.appendingPathComponent("report.json")
        let base64 = Data("agent:Pr0xy-S3cret".utf8).base64EncodedString()
        for base in [nginx.plainURL, nginx.tlsURL] {
            let result = try await run(
                Self.login,
                [
                    "--input", "base_url=\(base)", "--cacert", nginx.certificates.ca.path,
                    "--verbose", "--report", "json:\(report.path)",
                ],
                environment: [
                    "http_proxy": "http://agent:Pr0xy-S3cret@\(proxy.hostPort)",
                    "https_proxy": "http://agent:Pr0xy-S3cret@\(proxy.hostPort)",
                ])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            for text in [result.stdout, result.stderr, try String(contentsOf: report, encoding: .utf8)] {
                #expect(!text.contains("Pr0xy-S3cret") && !text.contains(base64))
            }
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl))
    func aProxyThatCannotBeReachedFailsTheStepNamingIt() async throws {
        let nginx = try await Nginx.shared()
        let port = try ExternalServers.freePorts(1)[0]
        let result = try await run(
            Self.reuse, ["--input", "base_url=\(nginx.plainURL)", "--proxy", "127.0.0.1:\(port)"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("cannot connect to proxy 127.0.0.1:\(port): connection refused"), "\(result.stderr)")
    }

    @Test func anUnusableProxyIsRefusedBeforeTheRun() async throws {
        let result = try await run(Self.reuse, [], environment: ["https_proxy": "socks5://user:hidden@127.0.0.1:1080"])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "error[RP0503]: https_proxy `socks5://user:***@127.0.0.1:1080` is not a usable proxy: "
                    + "`socks5://` proxies are not supported (only `http://`)"), "\(result.stderr)")
        #expect(!result.stderr.contains("hidden"))
    }

    // MARK: TLS

    static let ping = """
        reqplan: 1
        inputs:
          url: { default: "https://127.0.0.1:1" }
        steps:
          ping: { request: { url: "${{ inputs.url }}" } }
        outputs:
          body: ${{ steps.ping.body }}
        """

    @Test(ExternalServers.needed(.nginx, .openssl))
    func aServerWithAPrivateCAIsTrustedWithCacert() async throws {
        let nginx = try await Nginx.shared()
        let trusted = try await run(
            Self.ping, ["--input", "url=\(nginx.tlsURL)/json", "--cacert", nginx.certificates.ca.path])
        #expect(trusted.status == 0, "\(trusted.stdout)\(trusted.stderr)")
        let untrusted = try await run(Self.ping, ["--input", "url=\(nginx.tlsURL)/json"])
        #expect(untrusted.status == 1)
        #expect(
            untrusted.stderr.contains(
                "the TLS certificate of 127.0.0.1:\(nginx.tlsPort) is not trusted: its issuer is unknown"),
            "\(untrusted.stderr)")
        let fromEnvironment = try await run(
            Self.ping, ["--input", "url=\(nginx.tlsURL)/json"],
            environment: ["SSL_CERT_FILE": nginx.certificates.ca.path])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
    }

    @Test(ExternalServers.needed(.nginx, .openssl))
    func serversThatWantAClientCertificateGetOneWithCertAndKey() async throws {
        let nginx = try await Nginx.shared()
        let certificates = nginx.certificates
        let withCertificate = try await run(
            Self.ping,
            [
                "--input", "url=\(nginx.mtlsURL)/", "--cacert", certificates.ca.path,
                "--cert", certificates.client.certificate.path,
                "--key", certificates.client.key.path,
            ])
        #expect(withCertificate.status == 0, "\(withCertificate.stdout)\(withCertificate.stderr)")
        #expect(withCertificate.stdout.contains("reqplan-test-client"))
        let without = try await run(Self.ping, ["--input", "url=\(nginx.mtlsURL)/", "--cacert", certificates.ca.path])
        #expect(without.status == 1)
        #expect(without.stderr.contains("expected status 2xx, got 400"), "\(without.stderr)")

        // A server that wants the certificate in the handshake: without one, a TLS failure.
        let strict = try await HandshakeClientCertificateServer.start()
        defer { strict.stop() }
        let accepted = try await run(
            Self.ping,
            [
                "--input", "url=\(strict.url)/", "--cacert", certificates.ca.path,
                "--cert", certificates.clientCombined.path,
            ])
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
        let refused = try await run(Self.ping, ["--input", "url=\(strict.url)/", "--cacert", certificates.ca.path])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("127.0.0.1:\(strict.port) wants a TLS client certificate, and none was given"),
            "\(refused.stderr)")
    }

    @Test(ExternalServers.needed(.openssl))
    func unusableTLSFilesStopTheRunBeforeAnythingIsSent() async throws {
        let certificates = try await TestCertificates.shared()
        let missing = certificates.folder.appendingPathComponent("missing.pem").path
        let cases: [([String], String)] = [
            (["--cacert", missing], "error[RP0503]: --cacert `\(missing)`: no such file"),
            (
                ["--cert", certificates.client.certificate.path, "--key", certificates.server.key.path],
                "does not belong to the certificate"
            ),
            (["--cacert", certificates.client.key.path], "holds no PEM certificate"),
        ]
        for (arguments, message) in cases {
            let result = try await run(Self.ping, arguments)
            #expect(result.status == 2)
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }
}
