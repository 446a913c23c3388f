import Foundation
import NIOCore
import ReqPlanDemoAPI
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// Every behaviour of the transport, over both of its clients and both schemes (`Wire`): reqplan's own
/// client (HTTP/1.1, HTTP/2 over TLS, HTTP/1.1 over TLS), AsyncHTTPClient and, where FoundationNetworking
/// can, `URLSessionTransport` answer the same requests with the same results and fail with the same words. Against the demo API on loopback (over HTTPS
/// with its certificate trusted), and raw servers for what the demo API cannot send.
///
/// Each test has fifteen minutes (the longest takes seconds; the limit counts the wait for a `.timeSensitive`
/// slot too, which passed five minutes once with `stress-ng` and a build of the tests beside the suite): a
/// request that never ends fails its own test, by name, instead of holding the whole suite until CI's limit (one did, once in about a dozen runs of the suite: `aResponseThatIsNotHTTPIsNamed` over
/// AsyncHTTPClient and HTTP/2).
@Suite(.serialized, .timeLimit(.minutes(15)), .timeSensitive) struct WireTests {
    // MARK: Redirects

    @Test(arguments: Wire.allCases) func redirectsAcrossHostsDropCredentialsOverTheNetwork(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            // 127.0.0.1 and localhost are different origins on the same server.
            let other = base.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let result = try await runAgainstDemo(
                """
                reqplan: 1
                defaults: { base_url: "BASE_URL", headers: { Authorization: "Bearer secret-token" } }
                steps:
                  same: { request: { url: "/redirect-to?url=/echo" } }
                  cross: { request: { url: "/redirect-to?url=\(other)/echo" } }
                  see_other:
                    request: { method: POST, url: "/redirect-to?url=/echo&status=303", json: { a: 1 } }
                  temporary:
                    request: { method: POST, url: "/redirect-to?url=/echo&status=307", json: { a: 1 } }
                outputs:
                  same: ${{ contains(json(steps.same.body.headers), 'Bearer secret-token') }}
                  cross: ${{ contains(json(steps.cross.body.headers), 'Bearer secret-token') }}
                  see_other_method: ${{ steps.see_other.body.method }}
                  see_other_size: ${{ steps.see_other.body.body.size }}
                  temporary_method: ${{ steps.temporary.body.method }}
                  temporary_body: ${{ steps.temporary.body.body.text }}
                """, baseURL: base, wire: wire)
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            #expect(
                result.outputs.map(\.value) == [
                    .bool(true), .bool(false), .string("GET"), .int(0), .string("POST"), .string(#"{"a":1}"#),
                ])
        }
    }

    @Test(arguments: Wire.allCases) func everyRedirectStatusChangesTheMethodAsBrowsersDo(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            for (status, method, body) in [
                (301, "GET", ""), (302, "GET", ""), (303, "GET", ""),
                (307, "POST", #"{"a":1}"#), (308, "POST", #"{"a":1}"#),
            ] {
                let request = try PreparedRequest(
                    method: .POST, url: base + "/redirect-to?url=/echo&status=\(status)",
                    headers: [HeaderField("Content-Type", "application/json")], body: Array(#"{"a":1}"#.utf8))
                let echo = try Echo(try await wire.send(request).get())
                #expect(echo.method == method && echo.body == body, "\(status): \(echo.method) \(echo.body)")
                #expect(echo.header("content-type") == (body.isEmpty ? [] : ["application/json"]), "\(status)")
            }
            let put = try PreparedRequest(
                method: .PUT, url: base + "/redirect-to?url=/echo&status=302", headers: [],
                body: Array("x".utf8))
            #expect(try Echo(try await wire.send(put).get()).method == "PUT")
        }
    }

    @Test(arguments: Wire.allCases) func redirectsAreFollowedUpToTheLimit(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      few: { request: { url: /redirect/3 }, expect: { body: { redirected: true } } }
                      many: { request: { url: /redirect/20 } }
                    """, baseURL: base, wire: wire)
            #expect(result.results["few"]?.state == .succeeded)
            #expect(result.results["many"]?.state == .failed)
            let host = try #require(base.split(separator: "/").last)
            #expect(result.results["many"]?.reason?.message == "too many redirects from \(host) (more than 10)")
        }
    }

    @Test(arguments: Wire.allCases) func redirectsCanBeLeftUnfollowed(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let url = base + "/redirect-to?url=/echo&status=302"
            // The request says so.
            let unfollowed = try await wire.send(
                PreparedRequest(
                    method: .GET, url: url, headers: [], body: nil,
                    followRedirects: false)
            ).get()
            #expect(unfollowed.status == 302 && unfollowed.header("location") == "/echo")
            // The run says so (`--no-follow-redirects`), unless the request says otherwise.
            var configuration = wire.configuration()
            configuration.followRedirects = false
            let byRun = try await wire.send(
                try PreparedRequest(method: .GET, url: url, headers: [], body: nil),
                configuration: configuration
            ).get()
            #expect(byRun.status == 302)
            let byRequest = try await wire.send(
                PreparedRequest(
                    method: .GET, url: url, headers: [], body: nil,
                    followRedirects: true),
                configuration: configuration
            ).get()
            #expect(byRequest.status == 200)
            // By default redirects are followed.
            #expect(
                try await wire.send(try PreparedRequest(method: .GET, url: url, headers: [], body: nil)).get().status
                    == 200
            )
        }
    }

    @Test(arguments: Wire.allCases) func aRedirectBackToAVisitedURLFailsAtOnce(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      loop: { request: { url: /redirect-loop } }
                    """, baseURL: base, wire: wire)
            let loop = try #require(result.results["loop"])
            #expect(loop.state == .failed)
            #expect(loop.reason?.message.contains("too many redirects") == true)
            #expect(loop.reason?.message.contains("redirects back to itself") == true, "\(loop.reason?.message ?? "")")
        }
    }

    // MARK: The plain-HTTP connection pool

    // MARK: Size, coding, bodies

    @Test(arguments: Wire.allCases) func responsesLargerThanTheLimitFailWhetherAnnouncedOrNot(_ wire: Wire) async throws
    {
        try await wire.withDemo { base in
            var small = wire.configuration()
            small.maxBodySize = 1 << 20
            let host = try #require(base.split(separator: "/").last)
            for path in ["/huge?mb=2", "/stream?kb=2048"] {
                let error = try await wire.send(
                    try PreparedRequest(method: .GET, url: base + path, headers: [], body: nil),
                    configuration: small
                ).failure
                #expect(
                    error == TransportError(.bodyTooLarge, "the response from \(host) is larger than 1048576 bytes"),
                    "\(path)")
            }
            // Within the limit; and a HEAD response announces a length it does not send.
            let fits = try await wire.send(
                try PreparedRequest(method: .GET, url: base + "/stream?kb=1024", headers: [], body: nil),
                configuration: small
            ).get()
            #expect(fits.body.count == 1 << 20)
            let head = try await wire.send(
                try PreparedRequest(method: .HEAD, url: base + "/huge?mb=2", headers: [], body: nil),
                configuration: small
            ).get()
            #expect(head.status == 200 && head.body.isEmpty && head.header("content-length") == String(2 << 20))
        }
    }

    @Test(arguments: Wire.allCases) func onlyTheStartOfABodyNothingReadsIsKeptAndItsSizeCounted(_ wire: Wire)
        async throws
    {
        try await wire.withDemo { base in
            var limited = wire.configuration()
            limited.maxBodySize = 1 << 20
            // One transport, so kept-alive connections carry one exchange after another: each counts its own.
            try await wire.withTransport(limited) { transport in
                for path in ["/huge?mb=1", "/stream?kb=256", "/gzip", "/stream?kb=768"] {
                    var request = try PreparedRequest(method: .GET, url: base + path, headers: [], body: nil)
                    let whole = try await transport.send(request, timeout: nil)
                    request.keepsResponseBody = 1000
                    let start = try await transport.send(request, timeout: nil)
                    #expect(start.body == Array(whole.body.prefix(1000)), "\(path)")
                    #expect(start.size == whole.size && whole.size == whole.body.count, "\(path)")
                }
                // The limit still holds for the whole body, kept or not.
                var request = try PreparedRequest(method: .GET, url: base + "/stream?kb=1025", headers: [], body: nil)
                request.keepsResponseBody = 1000
                await #expect(throws: TransportError.self) { try await transport.send(request, timeout: nil) }
            }
        }
    }

    @Test(arguments: Wire.allCases) func compressedResponsesAreDecompressed(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      zipped: { request: { url: /gzip }, expect: { body: { compressed: true } } }
                    outputs:
                      length: ${{ length(steps.zipped.body.text) }}
                    """, baseURL: base, wire: wire)
            #expect(result.results["zipped"]?.state == .succeeded, "\(result.results["zipped"]?.reason?.message ?? "")")
            #expect(result.outputs[0].value == .int(8 * 64))
            let host = try #require(base.split(separator: "/").last)
            let broken = try await wire.send(
                try PreparedRequest(method: .GET, url: base + "/bad-gzip", headers: [], body: nil))
            #expect(
                broken.failure == TransportError(.other, "the response body from \(host) could not be decompressed"))
        }
    }

    /// reqplan's client puts NIO's decompressor on a connection (or stream) at its first compressed response
    /// (`ExchangeHandler.decompress`): the responses after it, plain or compressed, are read through it, on the
    /// same connection.
    @Test(arguments: Wire.allCases) func aConnectionReadsEveryResponseAfterItsFirstCompressedOne(_ wire: Wire)
        async throws
    {
        try await wire.withDemo { base in
            try await wire.withTransport(wire.configuration()) { transport in
                var peers: [String] = []
                for path in ["/connection/0", "/gzip", "/connection/0", "/gzip", "/connection/0"] {
                    let request = try PreparedRequest(method: .GET, url: base + path, headers: [], body: nil)
                    let response = try await transport.send(request, timeout: .seconds(20))
                    #expect(response.status == 200, "\(path)")
                    let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                    if path == "/gzip" {
                        #expect(response.body.count == 541 && body != nil, "\(response.body.count) bytes")
                    } else {
                        peers.append(try #require(body?["peer"] as? String))
                    }
                }
                #expect(Set(peers).count == 1, "\(peers)")
            }
        }
    }

    @Test(arguments: Wire.allCases) func rawBodiesAndFilesAreSentAsWritten(_ wire: Wire) async throws {
        let directory = TestFolders.unique("reqplan-wire")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data([0, 1, 2, 255]).write(to: directory.appendingPathComponent("blob.bin"))
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      raw: { request: { method: PUT, url: /echo, body: "line one\\nline ${{ 1 == 1 }}", headers: { Content-Type: text/csv } } }
                      file: { request: { method: POST, url: /echo, body_file: blob.bin } }
                    outputs:
                      raw: ${{ steps.raw.body.body.text }}
                      type: ${{ steps.raw.body.headers }}
                      file: ${{ steps.file.body.body.base64 }}
                    """, baseURL: base, wire: wire, planDirectory: directory)
            #expect(result.exitCode == 0)
            #expect(result.outputs[0].value == .string("line one\nline true"))
            #expect(result.outputs[1].value.jsonText().contains("text/csv"))
            #expect(result.outputs[2].value == .string("AAEC/w=="))
        }
    }

    @Test(arguments: Wire.allCases) func requestsAreBuiltAsWritten(_ wire: Wire) async throws {
        let directory = TestFolders.unique("reqplan-wire")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("file-bytes".utf8).write(to: directory.appendingPathComponent("a.txt"))
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader.replacingOccurrences(
                    of: "defaults: {", with: "defaults: { headers: { X-Default: d, X-Over: default },") + """
                        steps:
                          query:
                            request:
                              url: /echo
                              query: { q: "a b&c=d/é", tag: [x, y] }
                              headers: { X-Over: mine }
                          form: { request: { method: POST, url: /echo, form: { name: "a b", n: 3 } } }
                          json: { request: { method: POST, url: /echo, json: { n: 3, list: [true, null] } } }
                          multipart:
                            request:
                              method: POST
                              url: /echo
                              multipart:
                                note: hello
                                file: { file: a.txt, content_type: text/plain }
                        outputs:
                          query: ${{ steps.query.body.query }}
                          headers: ${{ steps.query.body.headers }}
                          form: ${{ steps.form.body.body.text }}
                          json: ${{ steps.json.body.body.text }}
                          multipart: ${{ steps.multipart.body.body.text }}
                        """, baseURL: base, wire: wire, planDirectory: directory)
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            let outputs = Dictionary(result.outputs.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            let raw = outputs["query"]?["raw"] ?? outputs["query"] ?? .null
            #expect(raw.interpolated.contains("q=a%20b%26c%3Dd%2F%C3%A9&tag=x&tag=y"))
            let headers = outputs["headers"]?.jsonText() ?? ""
            #expect(headers.contains("x-default"))
            #expect(headers.contains("mine"))
            #expect(!headers.contains("\"default\""))
            #expect(outputs["form"]?.interpolated == "name=a+b&n=3")
            #expect(outputs["json"]?.interpolated == #"{"n":3,"list":[true,null]}"#)
            let multipart = outputs["multipart"]?.interpolated ?? ""
            #expect(multipart.contains("name=\"note\""))
            #expect(multipart.contains("filename=\"a.txt\""))
            #expect(multipart.contains("file-bytes"))
        }
    }

    // MARK: Framing

    @Test(arguments: Wire.allCases) func bodiesAreFramedByTheirLengthWhateverTheMethod(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            func echo(_ method: HTTPMethodName, headers: [HeaderField] = [], body: String?) async throws -> Echo {
                try Echo(
                    try await wire.send(
                        PreparedRequest(
                            method: method, url: base + "/echo", headers: headers,
                            body: body.map { Array($0.utf8) })
                    ).get())
            }
            // A body on GET and DELETE is sent, with its length (URLSession refuses a GET with a body: see `Wire`).
            for method in wire.urlSession ? [HTTPMethodName.DELETE] : [.GET, .DELETE] {
                let sent = try await echo(method, body: "hello")
                #expect(sent.body == "hello" && sent.header("content-length") == ["5"], "\(method)")
            }
            // No body: no Content-Length where the method expects none, even a stray one the plan wrote;
            // `Content-Length: 0` where it may have one.
            let bare = try await echo(.GET, headers: [HeaderField("Content-Length", "5")], body: nil)
            #expect(bare.header("content-length") == [] && bare.body.isEmpty)
            for method in [HTTPMethodName.POST, .PUT, .PATCH, .OPTIONS] {
                #expect(try await echo(method, body: nil).header("content-length") == ["0"], "\(method)")
            }
            // Framing headers the plan wrote are replaced by the body's own.
            let chunked = try await echo(
                .POST,
                headers: [
                    HeaderField("Transfer-Encoding", "chunked"),
                    HeaderField("Content-Length", "99"),
                ], body: "abc")
            #expect(chunked.body == "abc" && chunked.header("content-length") == ["3"])
            #expect(chunked.header("transfer-encoding") == [])
        }
    }

    @Test(arguments: Wire.allCases) func requestsThatCannotBeSentAreRefusedBeforeSending(_ wire: Wire) async throws {
        try await wire.withDemo { base async throws in
            let trace = try PreparedRequest(method: .TRACE, url: base + "/echo", headers: [], body: Array("x".utf8))
            #expect(
                try await wire.send(trace).failure
                    == TransportError(.other, "a TRACE request cannot have a body (RFC 9110, section 9.3.8)"))
            let smuggled = try PreparedRequest(
                method: .GET, url: base + "/echo",
                headers: [HeaderField("X-Note", "a\r\nX-Admin: yes")], body: nil)
            #expect(
                try await wire.send(smuggled).failure
                    == TransportError(
                        .other,
                        "the value of the header `X-Note` holds a line break or another control character, so it cannot be sent"
                    ))
        }
    }

    @Test(arguments: Wire.allCases) func nonASCIIQueryTextIsPercentEncodedOnTheWire(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      echo: { request: { url: "/echo?name=caf\u{e9}" } }
                    outputs:
                      raw: ${{ steps.echo.body.query.raw }}
                      name: ${{ steps.echo.body.query.params[0].value }}
                    """, baseURL: base, wire: wire)
            #expect(result.exitCode == 0, "\(result.results["echo"]?.reason?.message ?? "")")
            #expect(result.outputs[0].value == .string("name=caf%C3%A9"))
            #expect(result.outputs[1].value == .string("caf\u{e9}"))
        }
    }
    @Test(arguments: Wire.allCases) func schemesCountOnlyAtTheStartAndInAnyCase(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let upper = base.replacingOccurrences(
                of: "\(wire.scheme.rawValue)://", with: "\(wire.scheme.rawValue.uppercased())://")
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      upper: { request: { url: "\(upper)/echo" } }
                      relative: { request: { url: "/echo?next=https://app.example/x" } }
                    outputs:
                      next: ${{ steps.relative.body.query.params[0].value }}
                    """, baseURL: base, wire: wire)
            #expect(result.results["upper"]?.state == .succeeded, "\(result.results["upper"]?.reason?.message ?? "")")
            #expect(result.outputs[0].value == .string("https://app.example/x"))
        }
    }

    // MARK: Timeouts and connections

    @Test(arguments: Wire.allCases) func attemptDeadlinesCoverTheBody(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      slow: { timeout: 200ms, request: { url: /delay/5000 } }
                      slow_body: { timeout: 300ms, request: { url: /slow-body } }
                    """, baseURL: base, wire: wire)
            let host = try #require(base.split(separator: "/").last)
            #expect(result.results["slow"]?.state == .failed)
            #expect(result.results["slow"]?.reason?.kind == .timeout)
            #expect(result.results["slow"]?.reason?.message == "request to \(host) timed out after 200ms")
            #expect(result.results["slow_body"]?.reason?.kind == .timeout)
            #expect(result.results["slow_body"]?.reason?.message == "request to \(host) timed out after 300ms")
        }
    }

    @Test(arguments: Wire.allCases) func anAttemptWithoutATimeoutGetsTheTransportDefault(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            var configuration = wire.configuration()
            configuration.requestTimeout = .milliseconds(300)
            let host = try #require(base.split(separator: "/").last)
            let error = try await wire.send(
                try PreparedRequest(method: .GET, url: base + "/delay/5000", headers: [], body: nil),
                configuration: configuration
            ).failure
            #expect(error == TransportError(.timeout, "request to \(host) timed out after 300ms"))
            // A step's own timeout wins.
            let own = try await wire.send(
                try PreparedRequest(method: .GET, url: base + "/delay/500", headers: [], body: nil),
                configuration: configuration, timeout: .seconds(5))
            #expect(try own.get().status == 200)
        }
    }

    // URLSession left out: a connect timeout (see `Wire`).
    @Test(arguments: Wire.withoutURLSession) func aHostThatNeverAnswersFailsAtTheConnectTimeout(_ wire: Wire)
        async throws
    {
        let silent = try SilentPort()
        defer { silent.close() }
        var configuration = wire.configuration()
        configuration.connectTimeout = .milliseconds(300)
        let url = "\(wire.scheme.rawValue)://127.0.0.1:\(silent.port)/"
        let start = ContinuousClock.now
        let error = try await wire.send(
            try PreparedRequest(method: .GET, url: url, headers: [], body: nil),
            configuration: configuration
        ).failure
        #expect(error == TransportError(.connect, "connecting to 127.0.0.1:\(silent.port) timed out after 300ms"))
        // Not a speed check: the run is not held up by the silent host beyond its limits.
        #expect(ContinuousClock.now - start < .seconds(10))
        // An attempt deadline shorter than the connect timeout ends it first, as a timeout.
        let deadline = try await wire.send(
            try PreparedRequest(method: .GET, url: url, headers: [], body: nil),
            configuration: configuration, timeout: .milliseconds(100)
        ).failure
        #expect(deadline?.kind == .timeout, "\(deadline?.message ?? "")")
    }

    // URLSession left out: an idle timeout for pooled connections (see `Wire`).
    @Test(arguments: Wire.withoutURLSession) func keptAliveConnectionsExpireWhenIdle(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            var configuration = wire.configuration()
            configuration.idleTimeout = .milliseconds(500)
            let peers = try await HTTPClientTransport.with(configuration) { transport in
                var peers: [String] = []
                for pause in [Duration.zero, .zero, .milliseconds(1500)] {
                    try await Task.sleep(for: pause)
                    let response = try await transport.send(
                        try PreparedRequest(method: .GET, url: base + "/connection/0", headers: [], body: nil),
                        timeout: nil
                    )
                    peers.append(String(decoding: response.body, as: UTF8.self))
                }
                return peers
            }
            #expect(peers[0] == peers[1], "a connection used again at once is kept")
            #expect(peers[1] != peers[2], "a connection idle for longer than the idle timeout is closed: \(peers)")
        }
    }

    @Test(arguments: Wire.allCases) func keptAliveConnectionsAreReused(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      a: { request: { url: /connection/0 } }
                      b: { needs: [a], request: { url: /connection/0 } }
                      c: { needs: [b], request: { url: /connection/0 } }
                    outputs:
                      a: ${{ steps.a.body.peer }}
                      b: ${{ steps.b.body.peer }}
                      c: ${{ steps.c.body.peer }}
                    """, baseURL: base, wire: wire)
            #expect(result.exitCode == 0)
            let peers = result.outputs.map(\.value)
            #expect(peers.count == 3 && Set(peers).count == 1, "one connection for three requests in a row: \(peers)")
        }
    }

    // URLSession left out: not resending a non-idempotent request (see `Wire`).
    @Test(arguments: Wire.withoutURLSession) func aKeptAliveConnectionClosedUnderARequestIsRetriedOnlyWhenIdempotent(
        _ wire: Wire
    ) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      mark: { request: { url: /close-next } }
                      again: { needs: [mark], request: { url: /connection/0 } }
                      mark_post: { needs: [again], request: { url: /close-next } }
                      post: { needs: [mark_post], request: { method: POST, url: /delay/0 } }
                    outputs:
                      marked: ${{ steps.mark.body.peer }}
                      again: ${{ steps.again.body.peer }}
                    """, baseURL: base, wire: wire)
            let again = try #require(result.results["again"])
            #expect(again.state == .succeeded, "\(again.reason?.message ?? "")")
            #expect(again.attempts.count == 1, "resent by the client, not retried by the plan")
            let peers = result.outputs.map(\.value)
            #expect(peers.count == 2 && peers[0] != peers[1], "the GET went again on a new connection: \(peers)")
            // A POST may have been acted on: it fails rather than being sent twice.
            let post = try #require(result.results["post"])
            #expect(post.state == .failed)
            #expect(post.reason?.kind == .transport)
            #expect(post.reason?.message.contains("reset") == true, "\(post.reason?.message ?? "")")
        }
    }

    // MARK: Failures, worded alike

    @Test(arguments: Wire.allCases) func transportFailuresNameHostAndCause(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let host = try #require(base.split(separator: "/").last)
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      refused: { request: { url: "\(wire.scheme.rawValue)://127.0.0.1:1/nothing" } }
                      reset: { request: { url: /reset } }
                      invalid: { request: { url: /invalid-json }, expect: { body: { ok: { exists: true } } } }
                    """, baseURL: base, wire: wire)
            #expect(result.results["refused"]?.reason?.kind == .transport)
            #expect(result.results["refused"]?.reason?.message == "connection to 127.0.0.1:1 refused")
            #expect(result.results["reset"]?.state == .failed)
            #expect(result.results["reset"]?.reason?.kind == .transport)
            #expect(
                result.results["reset"]?.reason?.message == "connection to \(host) was closed before the response ended"
            )
            #expect(result.results["invalid"]?.reason?.kind == .expectation)
            let unresolvable = try await wire.send(
                PreparedRequest(
                    method: .GET, url: "\(wire.scheme.rawValue)://no-such-host.invalid/",
                    headers: [], body: nil)
            ).failure
            #expect(unresolvable == TransportError(.connect, "could not resolve no-such-host.invalid"))
        }
    }

    // URLSession left out: a response that is not HTTP (see `Wire`).
    @Test(arguments: Wire.withoutURLSession) func aResponseThatIsNotHTTPIsNamed(_ wire: Wire) async throws {
        try await RawServer.with("SSH-2.0-OpenSSH_9.6\r\n\r\n", wire: wire) { base in
            let host = try #require(base.split(separator: "/").last)
            let error = try await wire.send(try PreparedRequest(method: .GET, url: base + "/", headers: [], body: nil))
                .failure
            #expect(error == TransportError(.other, "the response from \(host) is not valid HTTP"))
        }
    }

    @Test(arguments: Wire.allCases) func aBodyThatEndsWhenTheServerClosesIsReadWhole(_ wire: Wire) async throws {
        // HTTP/1.0 style: no Content-Length, no chunks; the body is everything until the close.
        let response = "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"ok\": true, \"n\": 1}"
        try await RawServer.with(response, wire: wire) { base in
            let result = try await runAgainstDemo(
                """
                reqplan: 1
                steps:
                  old: { request: { url: "BASE_URL/x" }, expect: { body: { ok: true } } }
                  again: { needs: [old], request: { url: "BASE_URL/y" } }
                outputs:
                  n: ${{ steps.old.body.n }}
                """, baseURL: base, wire: wire)
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            #expect(result.outputs[0].value == .int(1))
            // The closed connection is not reused: the next request opens another.
            #expect(result.results["again"]?.state == .succeeded)
        }
    }

    // MARK: Versions and certificates

    @Test(arguments: Wire.allCases) func plainHTTPIsHTTP11AndTLSNegotiatesHTTP2(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let echo = try Echo(
                try await wire.send(try PreparedRequest(method: .GET, url: base + "/echo", headers: [], body: nil))
                    .get())
            #expect(echo.protocolVersion == wire.protocolVersion)
        }
    }

    @Test(arguments: [Wire.reqplanHTTPS, .libraryHTTPS]) func certificatesAreVerifiedUnlessInsecure(_ wire: Wire)
        async throws
    {
        try await DemoAPI.withServer(tls: true) { base in
            let request = try PreparedRequest(method: .GET, url: base + "/home", headers: [], body: nil)
            // Not trusted: the demo API's certificate is self-signed.
            var strict = HTTPClientTransport.Configuration()
            strict.client = wire.client
            let failure = try await wire.send(request, configuration: strict).failure
            #expect(failure?.kind == .tls, "\(failure?.message ?? "")")
            var insecure = strict
            insecure.verifyCertificates = false
            #expect(try await wire.send(request, configuration: insecure).get().status == 200)
        }
    }

    @Test func anUntrustedCertificateFailsOverURLSessionAsTLS() async throws {
        // FoundationNetworking verifies against the system's trust store only: the demo API's self-signed
        // certificate is not trusted, and the failure is a `tls` one.
        try await DemoAPI.withServer(tls: true) { base in
            let request = try PreparedRequest(method: .GET, url: base + "/home", headers: [], body: nil)
            let failure = try await Wire.urlSessionHTTPS.send(request).failure
            #expect(failure?.kind == .tls, "\(failure?.message ?? "")")
        }
    }
}
