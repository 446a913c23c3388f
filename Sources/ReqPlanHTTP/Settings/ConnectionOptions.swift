import Foundation
import ReqPlanSyntax

/// The options for sessions, proxies and TLS, as `reqplan run` takes them on its command line.
public struct ConnectionOptions: Sendable {
    /// How messages name the settings: by default by what they are ("the CA file"); a host with options
    /// names them (the command line: "--cacert").
    public struct SettingNames: Sendable, Hashable {
        public var proxy: String
        public var caFile: String
        public var certificateFile: String
        public var keyFile: String
        /// Turning certificate verification off (`HTTPClientTransport.Configuration.verifyCertificates`).
        public var insecure: String

        /// Names that describe the settings.
        public init(
            proxy: String = "the proxy", caFile: String = "the CA file",
            certificateFile: String = "the client certificate file", keyFile: String = "the client key file",
            insecure: String = "verifyCertificates = false"
        ) {
            self.proxy = proxy
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.insecure = insecure
        }
    }

    /// `--cookie-jar FILE`: cookies loaded from it before the run and saved to it after.
    public var cookieJar: String?
    /// `--proxy URL` (`''` turns proxies off).
    public var proxy: String?
    /// `--noproxy LIST`.
    public var noProxy: String?
    /// `--cacert FILE`.
    public var caFile: String?
    /// `--cert FILE`.
    public var certificateFile: String?
    /// `--key FILE`.
    public var keyFile: String?
    /// How messages name these settings.
    public var names: SettingNames
    /// The limits the cookie file is read under (those of plans: `--max-plan-size`).
    public var limits: ParseLimits

    /// No option given.
    public init(
        cookieJar: String? = nil, proxy: String? = nil, noProxy: String? = nil, caFile: String? = nil,
        certificateFile: String? = nil, keyFile: String? = nil, names: SettingNames = SettingNames(),
        limits: ParseLimits = ParseLimits()
    ) {
        self.names = names
        self.limits = limits
        self.cookieJar = cookieJar
        self.proxy = proxy
        self.noProxy = noProxy
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

extension ConnectionOptions {
    /// Why the options cannot be used: diagnostics (RP0503, RP0517) and the files they are located in.
    public struct ConfigurationError: Error, Sendable {
        public var diagnostics: [Diagnostic]
        public var sources: [SourceFile]

        /// Creates a failure.
        public init(diagnostics: [Diagnostic], sources: [SourceFile]) {
            self.diagnostics = diagnostics
            self.sources = sources
        }
    }
}

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
