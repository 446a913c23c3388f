import Foundation
import Hummingbird
import Synchronization

/// What the demo API remembers between requests.
final class DemoState: Sendable {
    struct Storage {
        var nextID = 1
        var items: [Int: [String: String]] = [:]
        var carts: [Int: [String]] = [:]
        var flaky: [String: Int] = [:]
        var files: [Int: (name: String, bytes: [UInt8])] = [:]
    }
    let storage = Mutex(Storage())
}

/// The routes. See the README for the list.
struct DemoRoutes: Sendable {
    let state: DemoState

    func register(on router: Router<BasicRequestContext>) {
        router.get("/health") { _, _ in DemoRoutes.json(#"{"ok":true}"#) }
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
