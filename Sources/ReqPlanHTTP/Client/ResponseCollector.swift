import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ReqPlanSyntax
import ReqPlanTransport

/// Collects an AsyncHTTPClient response whole, on the event loop, under the same size rule as
/// `ReqPlanClient`'s `ExchangeHandler`, and remembers whether any of it arrived (so a connection
/// closed before the response started can be told from one closed in its middle).
final class ResponseCollector: HTTPClientResponseDelegate {
    typealias Response = TransportResponse

    /// The response is larger than the limit.
    struct TooLarge: Error {}

    private struct State {
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        /// The body's size so far, kept or not.
        var size = 0
    }

    private let state = NIOLockedValueBox(State())
    /// A HEAD response announces a length it does not send.
    private let bodiless: Bool
    private let limit: Int
    /// How many bytes of the body to keep (the rest is counted, not held).
    private let keep: Int

    init(method: HTTPMethodName, limit: Int, keep: Int = .max) {
        bodiless = method == .HEAD
        self.limit = limit
        self.keep = keep
    }

    /// Whether the response's head arrived.
    var responseStarted: Bool {
        state.withLockedValue { $0.head != nil }
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        state.withLockedValue { $0.head = head }
        // A HEAD response, a 204 or a 304 announces a length it does not send.
        if !bodiless, head.status != .noContent, head.status != .notModified,
            let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limit
        {
            return task.eventLoop.makeFailedFuture(TooLarge())
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let fits = state.withLockedValue { state in
            guard state.size + buffer.readableBytes <= limit else { return false }
            state.size += buffer.readableBytes
            if state.body.count < keep {
                state.body.append(contentsOf: buffer.readableBytesView.prefix(keep - state.body.count))
            }
            return true
        }
        return fits ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(TooLarge())
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> TransportResponse {
        let (head, body, size) = state.withLockedValue { state in
            let collected = (state.head, state.body, state.size)
            state.body = []
            return collected
        }
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return TransportResponse(
            status: Int(head.status.code), headers: head.headers.map { HeaderField($0.name, $0.value) },
            body: body, size: size)
    }
}
