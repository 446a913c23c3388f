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
        let toGet =
            (response.status == 303 && request.method != .HEAD)
            || ((response.status == 301 || response.status == 302) && request.method == .POST)
        let crossOrigin = !request.url.isSameOrigin(as: target)
        /// What the next hop keeps of the headers: the same for what is sent and for what outputs show.
        func carried(_ headers: [HeaderField]) -> [HeaderField] {
            var headers = headers
            if toGet {
                headers.removeAll {
                    $0.name.equalsIgnoringCase("content-length") || $0.name.equalsIgnoringCase("content-type")
                }
            }
            if crossOrigin {
                let credentials = ["origin", "cookie", "authorization", "proxy-authorization"]
                headers.removeAll { header in credentials.contains { header.name.equalsIgnoringCase($0) } }
            }
            // The Host header, if the plan set one, named the first host only.
            headers.removeAll { $0.name.equalsIgnoringCase("host") }
            return headers
        }
        if toGet {
            next.method = .GET
            next.body = nil
        }
        next.headers = carried(request.headers)
        // What outputs show goes on with the request: a 307 or 308 sends the same headers and body again, and
        // shows them as the first hop did (`***` where a secret went in, however short). The next URL is the
        // server's; a part of it that repeats one the first URL hid is hidden too.
        if let shown = request.shown {
            next.shown = ShownRequest(
                url: Self.hiding(in: target.text, as: shown.url, hid: request.url.text),
                headers: carried(shown.headers), body: toGet ? nil : shown.body,
                bodyCarriesSecret: !toGet && shown.bodyCarriesSecret)
        }
        return next
    }

    /// `url` with each of its path segments and query values that equals one `sent` showed otherwise (in
    /// `shown`: `***`) shown that way too. Parts are split at `/`, `?`, `&` and `=`.
    static func hiding(in url: String, as shown: String, hid sent: String) -> String {
        let separators: Set<Character> = ["/", "?", "&", "=", "#"]
        func parts(_ text: String) -> [Substring] {
            text.split(omittingEmptySubsequences: false, whereSeparator: { separators.contains($0) })
        }
        let sentParts = parts(sent)
        let shownParts = parts(shown)
        guard sentParts.count == shownParts.count else { return url }
        var hidden: [Substring: Substring] = [:]
        for (written, seen) in zip(sentParts, shownParts) where written != seen && !written.isEmpty {
            hidden[written] = seen
        }
        guard !hidden.isEmpty else { return url }
        var out = ""
        var part = ""
        for character in url {
            if separators.contains(character) {
                out += hidden[Substring(part)].map(String.init) ?? part
                out.append(character)
                part = ""
            } else {
                part.append(character)
            }
        }
        return out + (hidden[Substring(part)].map(String.init) ?? part)
    }
}
