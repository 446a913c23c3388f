/// How a redirect is followed, the same for both clients (AsyncHTTPClient's rules, which are
/// the browsers'): 303 turns any method but HEAD into a GET, 301 and 302 turn a POST into a
/// GET, 307 and 308 repeat the request as it was; a GET loses its body and content headers;
/// credentials and cookies are not sent to another origin.
enum Redirect {
    /// The request a redirect response asks for, or nil when `response` is not one to follow
    /// (not 301/302/303/307/308, no `Location`, or one that is not an http(s) URL).
    static func request(following response: TransportResponse, of request: PreparedRequest) -> PreparedRequest? {
        guard [301, 302, 303, 307, 308].contains(response.status),
            let location = response.header("location"),
            let target = request.url.resolving(location)
        else { return nil }
        var next = request
        next.url = target
        // What outputs show of the first URL does not name the next one.
        next.shown = nil
        let toGet =
            (response.status == 303 && request.method != .HEAD)
            || ((response.status == 301 || response.status == 302) && request.method == .POST)
        if toGet {
            next.method = .GET
            next.body = nil
            next.headers.removeAll {
                $0.name.equalsIgnoringCase("content-length") || $0.name.equalsIgnoringCase("content-type")
            }
        }
        if !request.url.isSameOrigin(as: target) {
            let credentials = ["origin", "cookie", "authorization", "proxy-authorization"]
            next.headers.removeAll { header in credentials.contains { header.name.equalsIgnoringCase($0) } }
        }
        // The Host header, if the plan set one, named the first host only.
        next.headers.removeAll { $0.name.equalsIgnoringCase("host") }
        return next
    }
}
