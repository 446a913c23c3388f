import ReqPlanSyntax

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
///   no `Content-Length` for GET, HEAD, DELETE and TRACE, whose semantics expect none, and
///   `Content-Length: 0` for the other methods (RFC 9110, section 8.6).
///
/// Besides the framing, reqplan's client (either one) writes `Host` and `Accept-Encoding` when the plan does
/// not (`head`). What every output shows of a request's headers is that same head (`shownHead`), so what
/// `--verbose` and the reports show is what the server received.
package enum RequestFraming {
    /// What a request says when the plan does not: the encodings reqplan decompresses (NIOHTTPCompression's
    /// decompressor's own value).
    package static let acceptEncoding = "deflate, gzip"

    /// Gives `add` every header of `request`'s head as reqplan's client writes it, in order: `Host` (the URL's
    /// authority) unless the plan sets it, the plan's framed (`frame`), then `Accept-Encoding` unless the plan
    /// sets it. Over HTTP/2, `Host` goes as `:authority`.
    /// - Throws: `TransportError` for a request that cannot be sent as it is.
    package static func head(_ request: PreparedRequest, _ add: (String, String) -> Void) throws(TransportError) {
        try check(request)
        lay(request.headers, of: request, authority: request.url.authority, length: nil, head: true, add)
    }

    /// Gives `add` each header to send for `request`, in order: the plan's, framed as above.
    /// - Throws: `TransportError` for a request that cannot be sent as it is.
    package static func frame(_ request: PreparedRequest, _ add: (String, String) -> Void) throws(TransportError) {
        try check(request)
        lay(request.headers, of: request, authority: "", length: nil, head: false, add)
    }

    /// `request`'s head (`head`) as every output shows it: from the shown URL and headers, with
    /// `Content-Length` hidden when a secret went into the body (its length would tell the secret's).
    /// Nothing is refused: a request that could not be sent is shown as it would have been.
    package static func shownHead(_ request: PreparedRequest) -> [HeaderField] {
        let shown = request.shown
        var head: [HeaderField] = []
        lay(
            request.shownHeaders, of: request,
            authority: shown.map { (try? RequestURL(parsing: $0.url).authority) ?? ShownRequest.secretMarker }
                ?? request.url.authority,
            length: shown.flatMap { $0.bodyCarriesSecret ? ShownRequest.secretMarker : nil }, head: true
        ) { head.append(HeaderField($0, $1)) }
        return head
    }

    /// Refuses what cannot be sent: a header name that is not a token, a value with a control character, a
    /// TRACE with a body.
    private static func check(_ request: PreparedRequest) throws(TransportError) {
        if request.method == .TRACE, let body = request.body, !body.isEmpty { throw .traceWithBody }
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
        }
    }

    /// Gives `add` `headers` framed as above, in order, `request`'s `Content-Length` (as `length` when given)
    /// after them; with `head`, `Host` (`authority`) before them and `Accept-Encoding` after, each unless
    /// `headers` has one.
    private static func lay(
        _ headers: [HeaderField], of request: PreparedRequest, authority: String, length: String?, head: Bool,
        _ add: (String, String) -> Void
    ) {
        if head, !headers.contains(where: { $0.name.equalsIgnoringCase("host") }) { add("Host", authority) }
        for header in headers
        where !header.name.equalsIgnoringCase("content-length") && !header.name.equalsIgnoringCase("transfer-encoding")
        {
            add(header.name, header.value)
        }
        let bodyLength = request.body?.count ?? 0
        if bodyLength > 0 || !expectsNoBody(request.method) { add("Content-Length", length ?? String(bodyLength)) }
        if head, !headers.contains(where: { $0.name.equalsIgnoringCase("accept-encoding") }) {
            add("Accept-Encoding", acceptEncoding)
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
        !name.isEmpty && name.utf8.allSatisfy(HeaderLine.isTokenByte)
    }

    /// A field value: any byte but the ASCII controls, tab allowed (RFC 9110, section 5.5).
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }
}

extension TransportError {
    /// What both clients say of a TRACE request with a body (the framing refuses it before either sends).
    package static let traceWithBody = TransportError(
        .other, "a TRACE request cannot have a body (RFC 9110, section 9.3.8)")
}
