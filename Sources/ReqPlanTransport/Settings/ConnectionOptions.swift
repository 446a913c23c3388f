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
