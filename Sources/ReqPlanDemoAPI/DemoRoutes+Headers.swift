import HTTPTypes
import Hummingbird
import NIOCore

extension DemoRoutes {
    /// Header endpoints (tests):
    ///
    /// `GET /response-headers?Name=value&…` — answers 200 `{"ok": true}` with each query parameter
    /// as a response header, in order; a repeated name is sent as repeated header fields (as
    /// httpbin's endpoint of the same name does), so clients' handling of repeated fields can be
    /// checked.
    func registerHeaders(on router: Router<DemoContext>) {
        router.get("/response-headers") { request, _ -> Response in
            var fields = HTTPFields()
            for (name, value) in Self.query(of: request) {
                guard let field = HTTPField.Name(name) else {
                    throw HTTPError(.badRequest, message: "`\(name)` is not a header name")
                }
                fields.append(HTTPField(name: field, value: value))
            }
            return Self.json(["ok": true], headers: fields)
        }
    }
}
