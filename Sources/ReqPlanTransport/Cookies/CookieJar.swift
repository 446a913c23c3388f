import Foundation
import Synchronization

/// A cookie as a jar keeps it (RFC 6265 §5.3).
public struct Cookie: Sendable, Hashable {
    /// The cookie's name.
    public var name: String
    /// Its value, as the server wrote it (quotes included).
    public var value: String
    /// The host it belongs to (`hostOnly`) or the domain it is sent within: lower case, no leading dot.
    public var domain: String
    /// Sent to `domain` itself only (no `Domain` attribute), not to its subdomains.
    public var hostOnly: Bool
    /// Sent only to paths under this one.
    public var path: String
    /// Sent only over `https://` (and to loopback hosts; see `CookieJar`).
    public var secure: Bool
    /// Set with `HttpOnly` (kept for the cookie file; every request here is HTTP).
    public var httpOnly: Bool
    /// When it expires, in seconds since 1970; nil for a session cookie (ends with the run).
    public var expires: Int64?

    /// A cookie.
    public init(
        name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/",
        secure: Bool = false, httpOnly: Bool = false, expires: Int64? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.hostOnly = hostOnly
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.expires = expires
    }
}

/// The cookies of one run, shared by every request of it (redirects included): `Set-Cookie` is
/// stored and cookies are sent back by the rules of RFC 6265 §5.3–5.4, as browsers, curl and
/// Hurl do. Safe from any task.
///
/// Where RFC 6265 leaves a choice, reqplan decides (grammar.md and docs/sessions.md say the same):
/// - A `Domain` that does not domain-match the request host is refused, and so is one that is a
///   public suffix. Without the whole public suffix list, a public suffix is taken to be a
///   single label (`com`, `local`), as curl built without libpsl does: `Domain=co.uk` is
///   accepted. A single-label `Domain` equal to the host (`localhost`) makes a host-only cookie.
/// - `Secure` cookies are sent over `https://` and to loopback hosts (`localhost`, 127.0.0.0/8,
///   `::1`), which RFC 6265bis lets a user agent treat as secure and browsers and curl do; a
///   `Secure` cookie set over plain HTTP by any other host is refused, and such a host cannot
///   overwrite a secure cookie (RFC 6265bis §5.7).
/// - The `__Secure-` and `__Host-` name prefixes are enforced (RFC 6265bis §4.1.3).
/// - Cookies are sent in one `Cookie` header, longest path first, then oldest first.
public final class CookieJar: Sendable {
    private struct Entry {
        var cookie: Cookie
        /// Order of creation, for sorting (a replaced cookie keeps the old one's).
        var created: UInt64
    }

    private struct State {
        var entries: [Entry] = []
        var nextCreated: UInt64 = 0
    }

    private let state = Mutex(State())
    /// How many cookies are stored, read without the lock: the plain path checks it per request.
    private let count = Atomic<Int>(0)
    private let now: @Sendable () -> Int64

    /// An empty jar.
    /// - Parameter clock: the time in seconds since 1970 (tests pass their own).
    public init(clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        now = clock
    }

    /// Whether no cookie is stored (expired ones may still count until the next change).
    public var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    /// Every cookie that has not expired, oldest first.
    public var cookies: [Cookie] {
        let time = now()
        return state.withLock { state in
            state.entries.filter { !Self.isExpired($0.cookie, at: time) }.map(\.cookie)
        }
    }

    /// Adds a cookie as it is (from a cookie file), replacing one with the same name, domain and path.
    public func insert(_ cookie: Cookie) {
        let time = now()
        state.withLock { state in
            put(cookie, into: &state, at: time)
        }
    }

    /// Stores what a response's `Set-Cookie` header sets, if the rules allow it.
    /// - Parameters:
    ///   - parsed: the header, parsed.
    ///   - url: where the response came from.
    /// - Returns: whether the cookie was stored (or deleted, for an expiry in the past).
    @discardableResult
    func store(_ parsed: SetCookie, from url: RequestURL) -> Bool {
        let time = now()
        guard let cookie = cookie(from: parsed, url: url, at: time) else { return false }
        return state.withLock { state in
            // RFC 6265bis §5.7: a host reached over plain HTTP cannot overwrite a secure cookie.
            if !cookie.secure && !Self.isSecure(url) {
                let shadows = state.entries.contains { entry in
                    entry.cookie.secure && entry.cookie.name == cookie.name
                        && (Self.domainMatches(entry.cookie.domain, cookie.domain)
                            || Self.domainMatches(cookie.domain, entry.cookie.domain))
                        && Self.pathMatches(cookie.path, entry.cookie.path)
                }
                if shadows { return false }
            }
            put(cookie, into: &state, at: time)
            return true
        }
    }

    /// The value of the `Cookie` header for a request to `url`: `name=value` pairs joined by
    /// `; `, longest path first, then oldest first; nil when no cookie matches.
    func header(for url: RequestURL) -> String? {
        let time = now()
        let secure = Self.isSecure(url)
        let matching = state.withLock { state in
            state.entries.filter { entry in
                let cookie = entry.cookie
                let hostMatches =
                    cookie.hostOnly
                    ? url.host == cookie.domain
                    : Self.domainMatches(url.host, cookie.domain) && !(url.hostIsAddress && url.host != cookie.domain)
                return hostMatches && Self.pathMatches(url.path, cookie.path) && (secure || !cookie.secure)
                    && !Self.isExpired(cookie, at: time)
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.sorted { a, b in
            a.cookie.path.utf8.count != b.cookie.path.utf8.count
                ? a.cookie.path.utf8.count > b.cookie.path.utf8.count : a.created < b.created
        }.map { "\($0.cookie.name)=\($0.cookie.value)" }.joined(separator: "; ")
    }

    // MARK: - The storage model (RFC 6265 §5.3)

    /// The cookie a `Set-Cookie` from `url` makes, or nil when it is refused.
    private func cookie(from parsed: SetCookie, url: RequestURL, at time: Int64) -> Cookie? {
        var cookie = Cookie(
            name: parsed.name, value: parsed.value, domain: url.host, hostOnly: true,
            path: parsed.path ?? Self.defaultPath(url.path), secure: parsed.secure,
            httpOnly: parsed.httpOnly)
        if let maxAge = parsed.maxAge {
            cookie.expires = maxAge <= 0 ? 0 : time + maxAge
        } else if let expires = parsed.expires {
            cookie.expires = max(expires, 0)
        }
        if let domain = parsed.domain {
            if Self.isPublicSuffix(domain) {
                guard domain == url.host else { return nil }
            } else {
                guard Self.domainMatches(url.host, domain), !url.hostIsAddress || url.host == domain else { return nil }
                cookie.domain = domain
                cookie.hostOnly = domain == url.host && url.hostIsAddress
            }
        }
        if cookie.secure && !Self.isSecure(url) { return nil }
        if parsed.name.hasPrefix("__Secure-") && !cookie.secure { return nil }
        if parsed.name.hasPrefix("__Host-") && !(cookie.secure && parsed.domain == nil && cookie.path == "/") {
            return nil
        }
        return cookie
    }

    /// Replaces the cookie with the same name, domain and path (keeping its creation order), or
    /// adds it; one that has expired only removes the old one. Expired cookies are dropped.
    private func put(_ cookie: Cookie, into state: inout State, at time: Int64) {
        var created: UInt64?
        state.entries.removeAll { entry in
            if entry.cookie.name == cookie.name && entry.cookie.domain == cookie.domain
                && entry.cookie.path == cookie.path
            {
                created = entry.created
                return true
            }
            return Self.isExpired(entry.cookie, at: time)
        }
        if !Self.isExpired(cookie, at: time) {
            let order = created ?? state.nextCreated
            state.nextCreated += 1
            let index = state.entries.firstIndex { $0.created > order } ?? state.entries.endIndex
            state.entries.insert(Entry(cookie: cookie, created: order), at: index)
        }
        count.store(state.entries.count, ordering: .relaxed)
    }

    private static func isExpired(_ cookie: Cookie, at time: Int64) -> Bool {
        cookie.expires.map { $0 <= time } ?? false
    }

    private static func isSecure(_ url: RequestURL) -> Bool {
        url.isHTTPS || url.isLoopback
    }

    /// RFC 6265 §5.1.3: the same, or `host` ends with `.domain` (names only: an IP address
    /// matches itself alone, which callers check).
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        host == domain
            || (host.utf8.count > domain.utf8.count && host.hasSuffix(domain)
                && host.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: "."))
    }

    /// RFC 6265 §5.1.4: the same path, or `path` goes on below `cookiePath`.
    static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        guard path.hasPrefix(cookiePath) else { return false }
        return path.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/")
            || path.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// RFC 6265 §5.1.4: the request path up to its last `/` (`/` when that is the first).
    static func defaultPath(_ path: String) -> String {
        guard path.first == "/", let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// A public suffix, as far as reqplan knows without the public suffix list: a single label.
    static func isPublicSuffix(_ domain: String) -> Bool {
        !domain.contains(".")
    }
}
