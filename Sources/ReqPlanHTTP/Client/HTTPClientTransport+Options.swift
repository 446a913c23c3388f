import Foundation
import ReqPlanSyntax
import ReqPlanTransport

extension HTTPClientTransport.Configuration {
    /// Reads what `options` and `environment` say about proxies, TLS files and the cookie file,
    /// before anything is sent: the proxies (their credentials become secrets of the run), the
    /// trust roots and client certificate, and the cookies of the `--cookie-jar` file (their
    /// values become secrets too).
    /// - Throws: a failure with one diagnostic (RP0503) naming the option, variable or file at
    ///   fault, and for a malformed cookie file its line, with the file to render it.
    public mutating func apply(_ options: ConnectionOptions, environment: [String: String]) throws(ConnectionOptions
        .ConfigurationError)
    {
        do {
            proxies = try ProxySettings(
                environment: environment, proxy: options.proxy, noProxy: options.noProxy, names: options.names)
        } catch {
            throw ConnectionOptions.ConfigurationError(
                diagnostics: [Diagnostic(.error, .invalidRunSetting, error.message)], sources: [])
        }
        for proxy in [proxies.http, proxies.https].compactMap({ $0 }) {
            if let password = proxy.password { secrets.add(password) }
            if let authorization = proxy.authorization {
                secrets.add(String(authorization.dropFirst("Basic ".count)))
            }
        }
        do {
            tls = try TLSSettings(
                caFile: options.caFile, certificateFile: options.certificateFile,
                keyFile: options.keyFile, environment: environment, names: options.names)
        } catch {
            throw ConnectionOptions.ConfigurationError(
                diagnostics: [Diagnostic(.error, .invalidRunSetting, error.message, file: error.file)],
                sources: [])
        }
        settingNames = options.names
        if let path = options.cookieJar {
            do {
                try CookieFile.load(path, into: cookies, limits: options.limits)
            } catch {
                let range = error.line.map { line in
                    SourceRange(start: SourceLocation(line: line, column: error.column ?? 1), length: 1)
                }
                throw ConnectionOptions.ConfigurationError(
                    diagnostics: [
                        Diagnostic(
                            .error, error.code ?? .invalidRunSetting, "the cookie jar cannot be read: \(error.message)",
                            file: path, at: range,
                            hint: error.hint
                                ?? (error.line == nil
                                    ? nil
                                    : "a line is: domain, TRUE/FALSE, path, TRUE/FALSE, expiry, name, value "
                                        + "(tabs between)"))
                    ],
                    sources: error.source.map { [$0] } ?? [])
            }
            for cookie in cookies.cookies { secrets.addCookieValue(cookie.value) }
        }
    }
}
