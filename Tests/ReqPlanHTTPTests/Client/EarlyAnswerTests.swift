import Foundation
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// A server that answers a request before it has read the body, as one refusing an upload or redirecting
/// a form does, and then closes the connection.
@Suite(.timeSensitive) struct EarlyAnswerTests {
    /// Over AsyncHTTPClient 1.37.0 on a group of several event loops, these requests stopped the whole
    /// process (a trap in its pool: "A connection that we don't know was released?") in nearly every run
    /// of 1,000, when a request's promises and its connection were on different loops (see
    /// `AsyncHTTPClientPath.loop`). Each request gets its answer, or is reported reset when the server
    /// closed its reused connection, over both clients alike.
    @Test(arguments: [Wire.reqplanHTTP, .libraryHTTP])
    func earlyAnswersToBodiesOnClosingConnectionsEachHaveAnOutcome(_ wire: Wire) async throws {
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        let outcomes = try await RawServer.with(answer, wire: wire, closing: .whenMoreArrives) { base in
            try await HTTPClientTransport.with(wire.configuration()) { transport in
                try await withThrowingTaskGroup(of: [String].self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var outcomes: [String] = []
                            for _ in 0..<250 {
                                let request = try PreparedRequest(
                                    method: .POST, url: base + "/", headers: [],
                                    body: Array(repeating: UInt8(ascii: "x"), count: 64))
                                do throws(TransportError) {
                                    let response = try await transport.send(request, timeout: .seconds(30))
                                    let text = String(decoding: response.body, as: UTF8.self)
                                    outcomes.append("\(response.status) \(text)")
                                } catch {
                                    outcomes.append("\(error.kind)")
                                }
                            }
                            return outcomes
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
            }
        }
        #expect(outcomes.count == 1000)
        #expect(Set(outcomes).isSubset(of: ["200 ok", "reset"]), "\(Set(outcomes))")
        #expect(outcomes.contains("200 ok"))
    }
}
