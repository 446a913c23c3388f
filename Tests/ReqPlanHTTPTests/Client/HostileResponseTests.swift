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
