import ArgumentParser
import Foundation
import Logging
import ReqPlanHTTP
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTransport

/// The options of how requests are sent, shared by `run` and `load`: TLS, redirects, timeouts, proxies, the
/// HTTP client, the response size limit and checks, and the `authorization_code` grant's browser.
struct ConnectionSettings: ParsableArguments {
    @OptionGroup var trust: TrustOptions

    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp("Time allowed to open a connection (default 10s).", valueName: "duration"))
    var connectTimeout: String?

    @Flag(
        name: .customLong("no-follow-redirects"),
        help: "Return 3xx responses as they are, unless a request says `follow_redirects: true`.")
    var noFollowRedirects = false

    @Option(
        name: .customLong("http-client"),
        help: ArgumentHelp(
            "The HTTP client: reqplan (its own, the default) or asynchttpclient (the library "
                + "fallback, should reqplan's client misbehave against some server).",
            valueName: "client"))
    var httpClient: HTTPClientTransport.Client = .reqplan
    @Option(name: .customLong("max-response-size"), help: "Largest response body accepted, in bytes.")
    var maxResponseSize: Int = HTTPClientTransport.Configuration().maxBodySize

    @Flag(
        name: .customLong("no-response-schema-check"),
        help: "Do not check responses against the schemas of the plan's API descriptions (`openapi:`).")
    var noResponseSchemaCheck = false

    @Flag(
        name: .customLong("open-browser"),
        help:
            "Open the sign-in address of an `authorization_code` grant with $BROWSER, else xdg-open (Linux) or open (macOS)."
    )
    var openBrowser = false

    @Option(
        name: .customLong("authorization-timeout"),
        help: ArgumentHelp(
            "How long an `authorization_code` grant waits for the browser to come back (default 5m).",
            valueName: "duration"))
    var authorizationTimeout: String?

    func validate() throws {
        if let connectTimeout, (try? PlanDuration.parse(connectTimeout))?.milliseconds ?? 0 <= 0 {
            throw ValidationError("--connect-timeout must be a duration such as 5s or 500ms, not `\(connectTimeout)`")
        }
        if let authorizationTimeout, (try? PlanDuration.parse(authorizationTimeout))?.milliseconds ?? 0 <= 0 {
            throw ValidationError(
                "--authorization-timeout must be a duration such as 5m or 90s, not `\(authorizationTimeout)`")
        }
    }

    /// The transport of a run (one plan, or every plan of a suite): TLS, redirects, timeouts, the
    /// response size limit, cookies, proxies; `--insecure` is announced. (The runtime sizes the connection
    /// pool for the plans, `PlanRun.sizingConnections`.)
    /// - Throws: exit code 2, after printing why, when a cookie, proxy or TLS setting cannot be used.
    func transport(secrets: SecretStore, cookieJar: String?, color: ColorChoice, limits: ParseLimits) throws
        -> HTTPClientTransport.Configuration
    {
        var transportConfiguration = HTTPClientTransport.Configuration()
        transportConfiguration.followRedirects = !noFollowRedirects
        transportConfiguration.client = httpClient
        if let timeout = connectTimeout.flatMap({ try? PlanDuration.parse($0) }) {
            transportConfiguration.connectTimeout = timeout.duration
        }
        transportConfiguration.maxBodySize = maxResponseSize
        transportConfiguration.secrets = secrets
        try trust.apply(to: &transportConfiguration, cookieJar: cookieJar, color: color, limits: limits)
        return transportConfiguration
    }

    /// The run settings of one plan: its folder for request files, `--concurrency`, the run's secrets and
    /// OAuth 2.0 tokens (`tokens`, made once for a suite's plans, which share them), the developer log
    /// (`logger`, made once too).
    func runConfiguration(
        for prepared: PlanRun.Prepared, concurrency: Int?, reading: PlanReadingOptions, secrets: SecretStore,
        tokens: TokenCache<OAuthGrant>? = nil, logger: Logger
    ) -> RunConfiguration {
        let folder = URL(fileURLWithPath: prepared.graph.plan.source.path).deletingLastPathComponent()
        var configuration = RunConfiguration(
            concurrency: concurrency,
            files: FileAccess(
                planDirectory: folder, allowOutside: reading.allowFilesOutside,
                outsideSetting: reading.limits.outsideSetting))
        configuration.backoffScale = 1
        configuration.secrets = secrets
        if let tokens { configuration.tokens = tokens }
        configuration.checksResponseSchemas = !noResponseSchemaCheck
        configuration.logger = logger
        if let wait = authorizationTimeout.flatMap({ try? PlanDuration.parse($0) }) {
            configuration.authorizationCode.wait = wait.duration
        }
        let prompt = BrowserPrompt(opening: openBrowser)
        configuration.authorizationCode.prompt = { prompt.show($0) }
        return configuration
    }
}

extension HTTPClientTransport.Client: ExpressibleByArgument {}

/// Whom a connection trusts and goes through: TLS verification and certificates, proxies. Shared by the
/// commands that send requests (`run`, `load`, through `ConnectionSettings`) and `report merge`, whose
/// `--push` sends the figures.
struct TrustOptions: ParsableArguments {
    @Flag(help: "Do not verify TLS certificates (dangerous).")
    var insecure = false

    @Option(
        help: ArgumentHelp(
            "Send requests through this HTTP proxy, [http://][user:password@]host[:port] "
                + "('' for none); overrides HTTP_PROXY, HTTPS_PROXY and ALL_PROXY.", valueName: "url"))
    var proxy: String?

    @Option(
        name: .customLong("noproxy"),
        help: ArgumentHelp(
            "Hosts reached without the proxy: names, domains, addresses and CIDR networks, "
                + "comma-separated ('*' for all); overrides NO_PROXY.", valueName: "list"))
    var noProxy: String?

    @Option(
        help: ArgumentHelp(
            "Trust the CA certificates of this PEM file instead of the system's.",
            valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("Client certificate (PEM) for servers that ask for one.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("Private key (unencrypted PEM) of --cert, if not in its file.", valueName: "file"))
    var key: String?

    /// Whether any of these options was given.
    var isGiven: Bool { insecure || proxy != nil || noProxy != nil || cacert != nil || cert != nil || key != nil }

    /// Applies these options (and a cookie jar file, for runs) to `configuration`; `--insecure` is announced.
    /// - Throws: exit code 2, after printing why, when a cookie, proxy or TLS setting cannot be used.
    func apply(
        to configuration: inout HTTPClientTransport.Configuration, cookieJar: String? = nil, color: ColorChoice,
        limits: ParseLimits
    ) throws {
        if insecure { writeError("warning: TLS certificate verification is OFF (--insecure)\n") }
        configuration.verifyCertificates = !insecure
        do {
            try configuration.apply(
                ConnectionOptions(
                    cookieJar: cookieJar, proxy: proxy, noProxy: noProxy, caFile: cacert,
                    certificateFile: cert, keyFile: key, names: .commandLine, limits: limits),
                environment: ProcessInfo.processInfo.environment)
        } catch {
            writeError(DiagnosticRenderer(colors: color.enabled, files: error.sources).text(error.diagnostics) + "\n")
            throw ExitCode(RunVerdict.invalid.exitCode)
        }
    }
}
