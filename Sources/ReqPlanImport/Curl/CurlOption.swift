/// The curl options the importer knows: what each is called, whether it takes a value, and what the
/// importer does with it.
enum CurlOption: Sendable, Hashable {
    case request, header, data(DataKind), json, form, formString, user, cookie, cookieJar, location
    case insecure, cacert, cert, key, proxy, compressed, get, userAgent, referer, head, url, oauth2Bearer
    case globoff, maxTime, uploadFile, digest, basicAuth, unsupportedAuth
    /// Options about what curl prints or where it writes it: nothing a plan has to say.
    case output
    /// Options that change how curl connects or retries, with no form in a plan: a warning each.
    case notConverted

    /// How `-d` and its kin read their value.
    enum DataKind: Sendable, Hashable {
        /// `-d`, `--data`, `--data-ascii`: `@file` reads a file, line breaks dropped.
        case ascii
        /// `--data-raw`: the text as it is, `@` included.
        case raw
        /// `--data-binary`: `@file` reads a file as it is.
        case binary
        /// `--data-urlencode`: `name=text`, `=text`, `text`, `@file`, `name@file`, percent-encoded.
        case urlencode
    }

    /// The option and whether it takes a value, for a long name without its `--`.
    static func long(_ name: String) -> (CurlOption, takesValue: Bool)? {
        if let known = longOptions[name] { return known }
        if outputFlags.contains(name) { return (.output, false) }
        if outputValues.contains(name) { return (.output, true) }
        if connectionFlags.contains(name) { return (.notConverted, false) }
        if connectionValues.contains(name) { return (.notConverted, true) }
        return nil
    }

    /// The option and whether it takes a value, for a short letter.
    static func short(_ letter: Character) -> (CurlOption, takesValue: Bool)? {
        shortOptions[letter]
    }

    private static let longOptions: [String: (CurlOption, takesValue: Bool)] = [
        "request": (.request, true), "header": (.header, true), "data": (.data(.ascii), true),
        "data-ascii": (.data(.ascii), true), "data-raw": (.data(.raw), true), "data-binary": (.data(.binary), true),
        "data-urlencode": (.data(.urlencode), true), "json": (.json, true), "form": (.form, true),
        "form-string": (.formString, true), "user": (.user, true), "cookie": (.cookie, true),
        "cookie-jar": (.cookieJar, true), "location": (.location, false), "location-trusted": (.location, false),
        "insecure": (.insecure, false), "cacert": (.cacert, true), "capath": (.cacert, true),
        "cert": (.cert, true), "key": (.key, true), "proxy": (.proxy, true), "compressed": (.compressed, false),
        "get": (.get, false), "user-agent": (.userAgent, true), "referer": (.referer, true), "head": (.head, false),
        "url": (.url, true), "oauth2-bearer": (.oauth2Bearer, true), "globoff": (.globoff, false),
        "max-time": (.maxTime, true), "upload-file": (.uploadFile, true), "digest": (.digest, false),
        "basic": (.basicAuth, false), "ntlm": (.unsupportedAuth, false), "negotiate": (.unsupportedAuth, false),
        "anyauth": (.unsupportedAuth, false), "aws-sigv4": (.notConverted, true), "proxy-user": (.proxy, true),
        "proxy-insecure": (.notConverted, false), "proxytunnel": (.proxy, false), "noproxy": (.proxy, true),
    ]

    private static let shortOptions: [Character: (CurlOption, takesValue: Bool)] = [
        "X": (.request, true), "H": (.header, true), "d": (.data(.ascii), true), "F": (.form, true),
        "u": (.user, true), "b": (.cookie, true), "c": (.cookieJar, true), "L": (.location, false),
        "k": (.insecure, false), "E": (.cert, true), "x": (.proxy, true), "G": (.get, false),
        "A": (.userAgent, true), "e": (.referer, true), "I": (.head, false), "g": (.globoff, false),
        "m": (.maxTime, true), "T": (.uploadFile, true), "U": (.proxy, true),
        "s": (.output, false), "S": (.output, false), "v": (.output, false), "i": (.output, false),
        "f": (.output, false), "o": (.output, true), "O": (.output, false), "w": (.output, true),
        "D": (.output, true), "J": (.output, false), "N": (.output, false), "#": (.output, false),
        "q": (.output, false), "n": (.notConverted, false), "4": (.notConverted, false), "6": (.notConverted, false),
        "0": (.notConverted, false), "1": (.notConverted, false), "2": (.notConverted, false),
        "3": (.notConverted, false), "Z": (.notConverted, false), "C": (.notConverted, true),
        "r": (.notConverted, true), "K": (.notConverted, true), "y": (.notConverted, true),
        "Y": (.notConverted, true), "z": (.notConverted, true), "j": (.notConverted, false),
        "Q": (.notConverted, true), "P": (.notConverted, true), "t": (.notConverted, true),
        "l": (.notConverted, false), "B": (.notConverted, false), "p": (.proxy, false), "R": (.output, false),
    ]

    private static let outputFlags: Set<String> = [
        "silent", "show-error", "verbose", "include", "fail", "fail-with-body", "fail-early", "no-buffer",
        "progress-bar", "remote-name", "remote-name-all", "remote-header-name", "no-progress-meter",
        "styled-output", "no-styled-output", "create-dirs", "xattr", "remote-time", "skip-existing", "raw",
        "show-headers", "no-silent", "no-verbose", "no-include", "no-fail",
    ]

    private static let outputValues: Set<String> = [
        "output", "write-out", "dump-header", "trace", "trace-ascii", "stderr", "output-dir", "trace-config",
        "etag-save", "etag-compare", "libcurl",
    ]

    private static let connectionFlags: Set<String> = [
        "http1.0", "http1.1", "http2", "http2-prior-knowledge", "http3", "http3-only", "http0.9", "ipv4", "ipv6",
        "no-keepalive", "tcp-nodelay", "tcp-fastopen", "no-sessionid", "ssl", "ssl-reqd", "tlsv1", "tlsv1.0",
        "tlsv1.1", "tlsv1.2", "tlsv1.3", "sslv2", "sslv3", "path-as-is", "retry-all-errors", "retry-connrefused",
        "post301", "post302", "post303", "junk-session-cookies", "netrc", "netrc-optional", "parallel",
        "tr-encoding", "no-alpn", "no-npn", "ssl-no-revoke", "ssl-allow-beast", "crlf", "use-ascii", "disable",
        "disallow-username-in-url", "false-start", "cert-status", "doh-insecure", "list-only", "append",
    ]

    private static let connectionValues: Set<String> = [
        "connect-timeout", "retry", "retry-delay", "retry-max-time", "range", "resolve", "connect-to", "config",
        "limit-rate", "speed-limit", "speed-time", "interface", "dns-servers", "max-redirs", "proto",
        "proto-redir", "proto-default", "tls-max", "ciphers", "tls13-ciphers", "unix-socket",
        "abstract-unix-socket", "cert-type", "key-type", "pass", "pinnedpubkey", "crlfile", "engine",
        "netrc-file", "continue-at", "time-cond", "max-filesize", "keepalive-time", "happy-eyeballs-timeout-ms",
        "expect100-timeout", "local-port", "doh-url", "preproxy", "proxy-cacert", "proxy-cert", "proxy-key",
        "socks4", "socks4a", "socks5", "socks5-hostname", "request-target", "variable", "url-query",
        "quote", "ftp-port", "telnet-option", "header-file", "mail-from", "mail-rcpt", "sasl-authzid",
        "login-options", "service-name", "delegation", "hostpubsha256", "hostpubmd5", "ssl-sessions",
    ]
}
