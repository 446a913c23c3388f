import NIOHTTP1
import ReqPlanSyntax
import ReqPlanTransport

/// How a request is framed on the wire, the same for both clients: the rules of AsyncHTTPClient's
/// request validation (`RequestValidation.swift`, `validateAndSetTransportFraming`), applied by the
/// transport before either client sends, so both send the same bytes and refuse the same requests
/// with the same words.
///
/// - Header names must be HTTP tokens and values must hold no control character but tab
///   (a line break in a value could smuggle a header in).
/// - A TRACE request cannot have a body (RFC 9110, section 9.3.8).
/// - `Content-Length` and `Transfer-Encoding` written by the plan are replaced: a body is sent with
///   its exact `Content-Length` whatever the method (GET, HEAD and DELETE included); no body means
///   no `Content-Length` for GET, HEAD, DELETE, CONNECT and TRACE, whose semantics expect none, and
///   `Content-Length: 0` for the other methods (RFC 9110, section 8.6).
package enum RequestFraming {
    /// Adds the headers to send for `request` to `headers`: the plan's, framed as above.
    /// - Throws: `TransportError` for a request that cannot be sent as it is.
    static func add(_ request: PreparedRequest, to headers: inout HTTPHeaders) throws(TransportError) {
        try frame(request) { headers.add(name: $0, value: $1) }
    }

    /// Gives `add` each header to send for `request`, in order: the plan's, framed as above.
    /// - Throws: `TransportError` for a request that cannot be sent as it is.
    package static func frame(_ request: PreparedRequest, _ add: (String, String) -> Void) throws(TransportError) {
        let bodyLength = request.body?.count ?? 0
        if request.method == .TRACE, bodyLength > 0 { throw .traceWithBody }
        for header in request.headers {
            guard isToken(header.name) else {
                throw TransportError(
                    .other, "the header name `\(header.name)` is not a valid HTTP token, so it cannot be sent")
            }
            guard isFieldValue(header.value) else {
                throw TransportError(
                    .other,
                    "the value of the header `\(header.name)` holds a line break or another "
                        + "control character, so it cannot be sent")
            }
            if header.name.equalsIgnoringCase("content-length") || header.name.equalsIgnoringCase("transfer-encoding") {
                continue
            }
            add(header.name, header.value)
        }
        if bodyLength > 0 || !expectsNoBody(request.method) {
            add("Content-Length", String(bodyLength))
        }
    }

    /// Methods whose semantics do not anticipate a body: without one they get no `Content-Length`.
    package static func expectsNoBody(_ method: HTTPMethodName) -> Bool {
        switch method {
        case .GET, .HEAD, .DELETE, .TRACE: true
        default: false
        }
    }

    /// `token` of RFC 9110, section 5.6.2.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// A field value: any byte but the ASCII controls, tab allowed (RFC 9110, section 5.5).
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
