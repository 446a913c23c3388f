import NIOCore
import ReqPlanHTTP
import ReqPlanTestSupport
import ReqPlanTransport
import Testing

/// What a hostile or broken server sends, through reqplan's whole HTTP/1.1 client on a socket (HOSTILE.md,
/// "Protocols"): each answer ends the request with a named failure, never a hang or a crash. Each is sent twice:
/// on a fresh connection, and on a kept-alive connection after a common response. The first response of each
/// connection is read by `CommonResponseDecoder` itself or handed to NIO's decoder; the second one is handed over
/// in the middle of a connection, after one it read itself. Both must end alike.
@Suite(.timeSensitive) struct HostileResponseTests {
    static let common = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    /// A hostile answer, and the failure it must end in.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var answer: String
        var kind: TransportError.Kind
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a status that is not a number", answer: "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", kind: .other),
        Case(
            name: "two lengths that differ",
            answer: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nzz", kind: .other),
        Case(
            name: "a length of 20 digits",
            answer: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nab", kind: .other),
        Case(
            name: "a header of 100 KB",
            answer: "HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\nContent-Length: 0\r\n\r\n",
            kind: .other),
        Case(
            name: "a line that is not a header", answer: "HTTP/1.1 200 OK\r\nno colon\r\nContent-Length: 0\r\n\r\n",
            kind: .other),
        Case(
            name: "a chunk size that is not a number",
            answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", kind: .other),
        Case(name: "the end inside the head", answer: "HTTP/1.1 200 OK\r\nContent-Len", kind: .reset),
        Case(name: "the end inside a body", answer: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\ncut", kind: .reset),
        Case(
            name: "a length of 18 digits, then the end",
            answer: "HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\nab", kind: .bodyTooLarge),
    ]

    func failure(answers: [String], pace: TimeAmount? = nil, timeout: Duration = .seconds(20)) async throws
        -> [String]
    {
        try await RawServer.with(answers: answers, pace: pace) { base in
            try await HTTPClientTransport.with(Wire.reqplanHTTP.configuration()) { transport in
                var outcomes: [String] = []
                for _ in answers {
                    let request = try PreparedRequest(method: .GET, url: base + "/", headers: [], body: nil)
                    do throws(TransportError) {
                        let response = try await transport.send(request, timeout: timeout)
                        outcomes.append("\(response.status) \(String(decoding: response.body, as: UTF8.self))")
                    } catch {
                        outcomes.append("\(error.kind)")
                    }
                }
                return outcomes
            }
        }
    }

    @Test(arguments: cases)
    func hostileAnswersFailWithANamedReasonOnFreshAndReusedConnections(_ hostile: Case) async throws {
        let fresh = try await failure(answers: [hostile.answer])
        #expect(fresh == ["\(hostile.kind)"])
        let reused = try await failure(answers: [Self.common, hostile.answer])
        #expect(reused == ["200 ok", "\(hostile.kind)"])
    }

    /// Whether a connection is used again after a response, whichever decoder read it (`RequestsInFlight.handedOver`
    /// and NIO's verdict on a head handed over). The server answers each connection's first request with `first`
    /// and its second with `second`, and never closes a connection before both: a client that keeps a connection the
    /// response said to close gets `second` for its second request, and one that drops a connection it could keep
    /// gets `first` again from a new one.
    struct KeepAliveCase: Sendable, CustomStringConvertible {
        var version = "1.1"
        /// The first answer's one header line, if any; its body, `c1`, is framed by a length unless this line says
        /// `Transfer-Encoding: chunked`.
        var header: String?
        var reused: Bool

        var first: String {
            let chunked = header == "Transfer-Encoding: chunked"
            let body = chunked ? "\r\n2\r\nc1\r\n0\r\n\r\n" : "Content-Length: 2\r\n\r\nc1"
            return "HTTP/\(version) 200 OK\r\n" + (header.map { "\($0)\r\n" } ?? "") + body
        }
        var description: String { "HTTP/\(version)" + (header.map { ", \($0)" } ?? "") }
    }

    /// The first two are read by reqplan's decoder, the rest handed over to NIO's.
    static let keepAliveCases = [
        KeepAliveCase(header: nil, reused: true),
        KeepAliveCase(header: "Connection: keep-alive", reused: true),
        KeepAliveCase(header: "Connection: close", reused: false),
        KeepAliveCase(header: "Connection: Close", reused: false),
        KeepAliveCase(header: "Connection: keep-alive, close", reused: false),
        KeepAliveCase(header: "Transfer-Encoding: chunked", reused: true),
        KeepAliveCase(version: "1.0", header: nil, reused: false),
        KeepAliveCase(version: "1.0", header: "Connection: keep-alive", reused: true),
    ]

    @Test(arguments: keepAliveCases)
    func aConnectionIsUsedAgainExactlyWhenItsResponseAllows(_ given: KeepAliveCase) async throws {
        let second = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nr2"
        let outcomes = try await failure(answers: [given.first, second])
        #expect(outcomes == ["200 c1", given.reused ? "200 r2" : "200 c1"])
    }

    /// A slowloris server: a common answer that comes a byte each 50 ms (about 2 s for its 41 bytes). The request's
    /// deadline of 0.5 s ends it (had the answer come whole, it would be `200 ok`), on a fresh connection and after a
    /// common response.
    @Test func anAnswerThatTricklesInEndsAtTheDeadline() async throws {
        let timeout = TransportError.Kind.timeout
        let fresh = try await failure(answers: [Self.common], pace: .milliseconds(50), timeout: .milliseconds(500))
        #expect(fresh == ["\(timeout)"])
        let reused = try await failure(
            answers: [Self.common, Self.common], pace: .milliseconds(50), timeout: .milliseconds(500))
        #expect(reused == ["200 ok", "\(timeout)"])
    }
}
