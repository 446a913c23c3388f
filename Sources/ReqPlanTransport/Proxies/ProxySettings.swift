import Foundation

/// An HTTP forward proxy: where it listens and the credentials it wants.
public struct ProxyServer: Sendable, Hashable {
    /// The host, as connected to (an IPv6 address without brackets).
    public var host: String
    /// The port (1080 when the URL names none, as curl does).
    public var port: Int
    /// The user name from the URL, percent-decoded, if any.
    public var username: String?
    /// The password from the URL, percent-decoded, if any.
    public var password: String?

    /// `host:port` (`[::1]:3128` for IPv6), as messages name it.
    public var hostPort: String {
        RequestURL.hostPort(host, port)
    }

    /// The `Proxy-Authorization` value its credentials make (`Basic …`), if it has any.
    public var authorization: String? {
        guard let username else { return nil }
        return "Basic " + Data("\(username):\(password ?? "")".utf8).base64EncodedString()
    }

    /// Reads `[http://][user[:password]@]host[:port][/]`, as curl's `--proxy` does.
    /// - Throws: the reason, as a sentence, when it is not such a URL (another scheme, no host,
    ///   a bad port).
    public init(parsing text: String) throws(ProxySettings.ConfigurationError) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if let separator = rest.range(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            guard scheme == "http" else {
                throw ProxySettings.ConfigurationError("`\(scheme)://` proxies are not supported (only `http://`)")
            }
            rest = rest[separator.upperBound...]
        }
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let colon = userinfo.firstIndex(of: ":")
            let user = colon.map { userinfo[..<$0] } ?? userinfo
            username = String(user).removingPercentEncoding ?? String(user)
            if let colon {
                let secret = userinfo[userinfo.index(after: colon)...]
                password = String(secret).removingPercentEncoding ?? String(secret)
            }
        }
        var hostPart = authority
        var portPart: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else {
                throw ProxySettings.ConfigurationError("`\(authority)` has no closing `]`")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else {
                    throw ProxySettings.ConfigurationError("`\(authority)` is not host:port")
                }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw ProxySettings.ConfigurationError("no host") }
        host = hostPart.lowercased()
        port = 1080
        if let portPart {
            guard let number = Int(portPart), (1...65535).contains(number) else {
                throw ProxySettings.ConfigurationError("`\(portPart)` is not a port (1-65535)")
            }
            port = number
        }
    }
}

/// Which proxy each request goes through, from `--proxy`, `--noproxy` and the environment.
///
/// - `--proxy URL` is used for `http://` and `https://` alike, and the environment's proxies are
///   not read; `--proxy ''` turns proxies off.
/// - Otherwise `http://` requests use `http_proxy`, else `HTTP_PROXY`, else `all_proxy`, else
///   `ALL_PROXY`; `https://` requests `https_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`:
///   lower case first, as curl reads them. Unlike curl, upper-case `HTTP_PROXY` is honoured
///   (curl ignores it because a CGI program gets the request's `Proxy:` header as `HTTP_PROXY`;
///   reqplan is never run as one). The first of them that is set decides: set but empty means
///   no proxy.
/// - `--noproxy LIST`, else `no_proxy`, else `NO_PROXY`, names hosts reached directly
///   (`NoProxyList`).
/// - Only `http://` proxies: plain HTTP goes through them in absolute form, HTTPS through `CONNECT`.
public struct ProxySettings: Sendable, Hashable {
    /// Why a proxy setting cannot be used: a sentence naming the setting.
    public struct ConfigurationError: Error, Sendable, Hashable {
        /// The reason, as a sentence.
        public var message: String

        init(_ message: String) { self.message = message }
    }

    /// The proxy for `http://` requests, if any.
    public var http: ProxyServer?
    /// The proxy for `https://` requests, if any.
    public var https: ProxyServer?
    /// Hosts reached directly.
    public var noProxy = NoProxyList("")

    /// No proxy.
    public init() {}

    /// The settings the options and the environment give (see the type's documentation).
    /// - Parameters:
    ///   - environment: the process's environment variables.
    ///   - proxy: `--proxy`, if given.
    ///   - noProxy: `--noproxy`, if given.
    /// - Throws: a `ConfigurationError` naming the option or variable whose URL is not an `http://` proxy.
    ///   - names: how messages name `proxy`.
    public init(
        environment: [String: String], proxy: String?, noProxy: String?,
        names: ConnectionOptions.SettingNames = ConnectionOptions.SettingNames()
    ) throws(ConfigurationError) {
        func server(_ text: String, from source: String) throws(ConfigurationError) -> ProxyServer? {
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            do {
                return try ProxyServer(parsing: text)
            } catch {
                throw ConfigurationError(
                    "\(source) `\(Self.hidingPassword(text))` is not a usable proxy: \(error.message)")
            }
        }
        func variable(_ names: [String]) -> (name: String, value: String)? {
            names.lazy.compactMap { name in environment[name].map { (name, $0) } }.first
        }
        if let proxy {
            http = try server(proxy, from: names.proxy)
            https = http
        } else {
            if let (name, value) = variable(["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]) {
                http = try server(value, from: name)
            }
            if let (name, value) = variable(["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]) {
                https = try server(value, from: name)
            }
        }
        self.noProxy = NoProxyList(noProxy ?? variable(["no_proxy", "NO_PROXY"])?.value ?? "")
    }

    /// Whether any request can go through a proxy (when not, nothing is looked up per request).
    public var isEnabled: Bool { http != nil || https != nil }

    /// The proxy a request to `url` goes through, or nil to connect directly.
    package func server(for url: RequestURL) -> ProxyServer? {
        guard let server = url.isHTTPS ? https : http, !noProxy.matches(url.host) else { return nil }
        return server
    }

    /// `text` with the password of a `user:password@` part replaced by `***`, for messages.
    static func hidingPassword(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        guard start < at, let colon = text[start..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }
}

/// The hosts reached without a proxy (`--noproxy`, `NO_PROXY`), matched exactly as curl matches
/// them (lib/noproxy.c):
/// - `*` alone matches every host;
/// - entries are separated by commas, with spaces and tabs around them ignored (as in curl, a
///   blank inside the list that is not followed by a comma ends it);
/// - a host name matches an entry that is the same name or a domain it is in, ignoring case, a
///   leading dot of the entry and a trailing dot of either: `example.com` and `.example.com`
///   both match `example.com` and `www.example.com`, not `notexample.com`;
/// - an IP address matches an entry that is the same address, or a network in CIDR notation
///   (`10.0.0.0/8`, `fd00::/8`); a name never matches an address, nor the reverse (no lookup).
public struct NoProxyList: Sendable, Hashable {
    /// The list as given.
    public var text: String

    /// A list as `--noproxy` or `NO_PROXY` gives it.
    public init(_ text: String) {
        self.text = text
    }

    /// Whether `host` (an IPv6 address without brackets) is reached directly.
    public func matches(_ host: String) -> Bool {
        guard !host.isEmpty, !text.isEmpty else { return false }
        if text == "*" { return true }
        let address = IPAddress(host)
        var name = Substring(host)
        if address == nil, name.last == "." { name = name.dropLast() }
        for token in tokens() {
            if let address {
                let parts = token.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
                guard let network = IPAddress(String(parts[0])) else { continue }
                // As curl's atoi: digits up to the first other character; none is 0, the whole address.
                let bits = parts.count > 1 ? Int(parts[1].prefix { $0.isASCII && $0.isNumber }) ?? 0 : 0
                if address.isIn(network, bits: bits == 0 ? nil : bits) { return true }
            } else {
                var entry = token
                if entry.last == "." { entry = entry.dropLast() }
                if entry.first == "." { entry = entry.dropFirst() }
                guard !entry.isEmpty, entry.count <= name.count else { continue }
                let tail = name.suffix(entry.count)
                guard tail.lowercased() == entry.lowercased() else { continue }
                if entry.count == name.count || name.dropLast(entry.count).last == "." { return true }
            }
        }
        return false
    }

    /// The entries, as curl reads them: blanks skipped before and after each; a comma (or
    /// several) goes to the next; anything else after the blanks ends the list.
    private func tokens() -> [Substring] {
        var result: [Substring] = []
        var rest = Substring(text)
        func isBlank(_ character: Character) -> Bool { character == " " || character == "\t" }
        while !rest.isEmpty {
            rest = rest.drop(while: isBlank)
            let token = rest.prefix { !isBlank($0) && $0 != "," }
            if !token.isEmpty { result.append(token) }
            rest = rest.dropFirst(token.count).drop(while: isBlank)
            guard rest.first == "," else { break }
            rest = rest.drop { $0 == "," }
        }
        return result
    }
}
