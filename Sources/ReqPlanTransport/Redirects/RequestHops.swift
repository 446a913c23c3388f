/// The part of sending a request every HTTP client shares, around each hop: the run's cookie jar (sent
/// and filled on every hop), redirects followed one hop at a time (`Redirect`), up to a limit and never
/// back to a URL visited. `HTTPClientTransport` (both of its clients) and `URLSessionTransport` send each
/// hop their own way and leave the rest to this.
package struct RequestHops: Sendable {
    /// Whether 3xx redirects are followed when the request does not say (`follow_redirects`).
    package var followRedirects: Bool
    /// Redirects followed before giving up.
    package var maxRedirects: Int
    /// The run's cookie jar.
    package var cookies: CookieJar
    /// Where cookie values go, so every output hides them.
    package var secrets: SecretStore

    /// Creates the hop rules of a transport.
    package init(followRedirects: Bool, maxRedirects: Int, cookies: CookieJar, secrets: SecretStore) {
        self.followRedirects = followRedirects
        self.maxRedirects = maxRedirects
        self.cookies = cookies
        self.secrets = secrets
    }

    /// Sends `request` one hop at a time through `hop` (one exchange, no redirect followed), with the
    /// jar's cookies, following redirects as the request or the transport says.
    /// - Returns: the last response, with every cookie the hops set (`setCookies`), the hops before it
    ///   (`redirects`), the request it answers as sent (`sentRequest`) and each hop's `timing`.
    package func send(
        _ request: PreparedRequest, hop: (PreparedRequest) async throws(TransportError) -> TransportResponse
    ) async throws(TransportError) -> TransportResponse {
        let follow = request.followRedirects ?? followRedirects
        var current = request
        var visited: Set<String> = [request.url.text]
        var redirects = 0
        var setCookies: [HeaderField] = []
        var hops: [RedirectHop] = []
        while true {
            let outgoing = addingCookies(to: current)
            let start = ContinuousClock.now
            var response = try await hop(outgoing)
            response.timing = ExchangeTiming(
                start: start, total: ContinuousClock.now - start, phases: response.timing?.phases)
            takeCookies(from: response, of: current, into: &setCookies)
            guard follow, let next = Redirect.request(following: response, of: current) else {
                response.setCookies = setCookies
                response.redirects = hops
                response.sentRequest = outgoing
                return response
            }
            hops.append(RedirectHop(request: outgoing, response: response))
            redirects += 1
            guard redirects <= maxRedirects else {
                throw TransportError(.other, "too many redirects from \(request.host) (more than \(maxRedirects))")
            }
            guard visited.insert(next.url.text).inserted else {
                throw TransportError(
                    .other, "too many redirects from \(request.host) (\(next.url) redirects back to itself)")
            }
            current = next
        }
    }

    /// Whether a response to the first hop of `request` needs more hops, or cookies kept: a redirect to follow,
    /// or a `Set-Cookie`. A `RequestRepeater` takes the other responses as they are.
    package func goesOn(after response: TransportResponse, of request: PreparedRequest) -> Bool {
        if response.headers.contains(where: { $0.name.equalsIgnoringCase("set-cookie") }) { return true }
        return (request.followRedirects ?? followRedirects) && Redirect.request(following: response, of: request) != nil
    }

    /// `request` as it goes on the wire: the jar's cookies for its URL merged into its `Cookie`
    /// header. The request's own pairs come first and win: a jar cookie whose name the request
    /// already sets is left out. Costs nothing more than a check while the jar is empty. What outputs show
    /// of it (`shown`, when it differs) gets the `Cookie` header too, which every output hides by name.
    func addingCookies(to request: PreparedRequest) -> PreparedRequest {
        var outgoing = addingJarCookies(to: request)
        if var shown = outgoing.shown,
            let cookie = outgoing.headers.first(where: { $0.name.equalsIgnoringCase("cookie") })
        {
            shown.headers.removeAll { $0.name.equalsIgnoringCase("cookie") }
            shown.headers.append(cookie)
            outgoing.shown = shown
        }
        return outgoing
    }

    private func addingJarCookies(to request: PreparedRequest) -> PreparedRequest {
        let jar = cookies
        guard request.usesCookies, !jar.isEmpty, let stored = jar.header(for: request.url)
        else { return request }
        var outgoing = request
        guard let first = request.headers.firstIndex(where: { $0.name.equalsIgnoringCase("cookie") }) else {
            outgoing.headers.append(HeaderField("Cookie", stored))
            return outgoing
        }
        let written = request.headers.filter { $0.name.equalsIgnoringCase("cookie") }.map(\.value)
        let names = Set(written.flatMap { Self.cookieNames(in: $0) })
        let added = stored.split(separator: ";").map { $0.drop { $0 == " " } }
            .filter { !names.contains(Self.name(of: $0)) }
        var merged = written.joined(separator: "; ")
        if !added.isEmpty { merged += "; " + added.joined(separator: "; ") }
        outgoing.headers[first] = HeaderField(request.headers[first].name, merged)
        outgoing.headers.removeAll { $0.name.equalsIgnoringCase("cookie") && $0.value != merged }
        return outgoing
    }

    /// Reads the `Set-Cookie` headers of one hop's response: each cookie's name and value go to
    /// `setCookies` (whether or not the jar keeps it: `steps.X.cookies` is what the server
    /// set) and their values to the run's secrets; the jar stores them unless the request
    /// turned cookies off.
    func takeCookies(
        from response: TransportResponse, of request: PreparedRequest, into setCookies: inout [HeaderField]
    ) {
        // The length first: most responses set no cookie, and this runs for every hop.
        for header in response.headers
        where header.name.utf8.count == 10 && header.name.equalsIgnoringCase("set-cookie") {
            guard let parsed = SetCookie(header.value) else { continue }
            setCookies.append(HeaderField(parsed.name, parsed.value))
            secrets.addCookieValue(parsed.value)
            guard request.usesCookies else { continue }
            cookies.store(parsed, from: request.url)
        }
    }

    private static func cookieNames(in header: String) -> [Substring] {
        header.split(separator: ";").map { name(of: $0.drop { $0 == " " }) }
    }

    private static func name(of pair: Substring) -> Substring {
        pair.prefix { $0 != "=" }.trimmingTrailingSpaces()
    }
}

extension Substring {
    fileprivate func trimmingTrailingSpaces() -> Substring {
        var result = self
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
