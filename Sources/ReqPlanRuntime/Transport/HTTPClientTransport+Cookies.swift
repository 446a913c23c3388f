/// The run's cookie jar around each hop of a request (redirects included).
extension HTTPClientTransport {
    /// `request` as it goes on the wire: the jar's cookies for its URL merged into its `Cookie`
    /// header. The request's own pairs come first and win: a jar cookie whose name the request
    /// already sets is left out. Costs nothing more than a check while the jar is empty.
    func addingCookies(to request: PreparedRequest) -> PreparedRequest {
        let jar = configuration.cookies
        guard request.usesCookies, !jar.isEmpty, let url = URLParts(request.url),
            let stored = jar.header(for: url)
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
        var url: URLParts?
        // The length first: most responses set no cookie, and this runs for every hop.
        for header in response.headers
        where header.name.utf8.count == 10 && header.name.equalsIgnoringCase("set-cookie") {
            guard let parsed = SetCookie(header.value) else { continue }
            setCookies.append(HeaderField(parsed.name, parsed.value))
            configuration.secrets.addCookieValue(parsed.value)
            guard request.usesCookies else { continue }
            if url == nil { url = URLParts(request.url) }
            if let url { configuration.cookies.store(parsed, from: url) }
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
