import ReqPlanArazzo
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

/// reqplan's composition root: the one place that wires its stages together. Every command, the language
/// server, the demo and the `ReqPlan` library build their plans, checks and runs here, so each gets the same
/// readers, the same checks and the same transport (swift-openapi-generator's `GeneratorPipeline` is the
/// model: one named type whose stages a reader can follow).
///
/// The stages, in the order a run goes through them:
/// 1. `library(unsavedText:readCache:apiCheckCache:)`: what reads plan files, reads Arazzo documents as plans
///    (`ArazzoReader`) and binds the OpenAPI descriptions both name (`OpenAPIDocumentLoader`). The pipeline's
///    one description loader is shared by every library it makes and by the Arazzo reader, so a command reads
///    each description once.
/// 2. `validate(_:)`: the planner's static checks of every plan of a suite.
/// 3. `prepare(_:…)`: the same, and each plan's inputs resolved, ready to run.
/// 4. `execute(_:…)`: the executor over the HTTP transport the pipeline builds, sizes and shuts down.
public struct Pipeline: Sendable {
    /// How plans are read: limits, the files they may name, and how Arazzo documents are read.
    public struct Reading: Sendable {
        /// Size and alias-expansion limits of every file read.
        public var limits: ParseLimits
        /// Whether the files plans name may be outside their folder (`--allow-files-outside`).
        public var allowFilesOutside: Bool
        /// Where each Arazzo source description is served, by name (`--server NAME=URL`).
        public var servers: [String: String]
        /// The Arazzo workflow to run, with those it depends on (`--workflow`); `nil` for all.
        public var workflow: String?
        /// Whether a sequential Arazzo workflow runs by its data flow (`--parallel`).
        public var parallel: Bool
        /// The step a plan file is narrowed to, with what it needs (`--scenario`, `PlanScenario`); `nil` for
        /// whole plans.
        public var scenario: String? = nil
        /// Credentials for the security schemes of the descriptions plans and Arazzo documents bind
        /// (`--credential`).
        public var credentials: CommandLineCredentials

        /// Reading settings; the defaults are `reqplan`'s.
        public init(
            limits: ParseLimits = ParseLimits(), allowFilesOutside: Bool = false, servers: [String: String] = [:],
            workflow: String? = nil, parallel: Bool = false,
            credentials: CommandLineCredentials = CommandLineCredentials()
        ) {
            self.limits = limits
            self.allowFilesOutside = allowFilesOutside
            self.servers = servers
            self.workflow = workflow
            self.parallel = parallel
            self.credentials = credentials
        }
    }

    /// How plans are read.
    public var reading: Reading
    /// The one reader of API descriptions, its results kept for every library of this pipeline (and across
    /// them, until `forget(changed:)`).
    private let descriptions: CachingAPIDescriptionLoader

    /// A pipeline reading plans as `reading` says.
    /// - Parameter apiLoader: what reads API descriptions (default: `OpenAPIDocumentLoader`, OpenAPI 3.x
    ///   and Swagger 2.0).
    public init(reading: Reading = Reading(), apiLoader: any APIDescriptionLoader = OpenAPIDocumentLoader()) {
        self.reading = reading
        self.descriptions = CachingAPIDescriptionLoader(apiLoader)
    }

    /// The same pipeline with other reading settings, sharing the descriptions read so far.
    public func reading(_ change: (inout Reading) -> Void) -> Pipeline {
        var copy = self
        change(&copy.reading)
        return copy
    }

    /// Forgets the descriptions read from `files` (changed on disk), so the next library reads them again.
    public func forget(changed files: [String]) { descriptions.forget(changed: files) }

    // MARK: 1. Reading

    /// A library of checked plans for one command (or one check of the language server): plan files and
    /// Arazzo documents, with the OpenAPI descriptions they bind.
    /// - Parameters:
    ///   - unsavedText: the text of files as an editor holds them, unsaved (by absolute path).
    ///   - readCache: what earlier libraries read of plans' steps, to read again only what changed.
    ///   - apiCheckCache: what earlier libraries' API checks found, to check again only what changed.
    public func library(
        unsavedText: (@Sendable (String) -> String?)? = nil, readCache: PlanReadCache? = nil,
        apiCheckCache: APICheckCache? = nil
    ) -> PlanLibrary {
        PlanLibrary(
            apiLoader: descriptions, documentReader: arazzoReader, unsavedText: unsavedText, readCache: readCache,
            apiCheckCache: apiCheckCache, commandLineCredentials: reading.credentials, scenario: reading.scenario)
    }

    /// What reads Arazzo documents as plans, as this pipeline's settings say.
    private var arazzoReader: ArazzoReader {
        ArazzoReader(
            servers: reading.servers, workflow: reading.workflow, parallel: reading.parallel,
            apiLoader: descriptions, allowFilesOutside: reading.allowFilesOutside)
    }

    /// Whether `source` is a document of another kind than a plan that the pipeline reads as plans (an
    /// Arazzo document).
    public func isDocument(_ source: SourceFile) -> Bool { arazzoReader.recognises(source) }

    /// The API description at `path` (absolute), read whole, through the pipeline's one loader (`coverage`).
    public func description(fileAt path: String, boundary: FileBoundary)
        -> Result<APIDescription, APIDescriptionLoadError>
    {
        descriptions.load(fileAt: path, boundary: boundary)
    }

    // MARK: 2. Checking

    /// Checks every plan of `suite` (plans and Arazzo documents), each file once however many include it.
    public func validate(_ suite: SuiteFiles, library: PlanLibrary? = nil) -> [ValidationReport] {
        PlanValidator.validate(
            suite: suite, limits: reading.limits, allowFilesOutside: reading.allowFilesOutside,
            library: library ?? self.library())
    }

    /// Checks the plan file (or Arazzo document) at `path`.
    public func validate(fileAt path: String, library: PlanLibrary? = nil) -> ValidationReport {
        PlanValidator.validate(
            fileAt: path, limits: reading.limits, allowFilesOutside: reading.allowFilesOutside,
            library: library ?? self.library())
    }

    /// Checks plan text held in memory; its sub-plans are read relative to the folder of `source.path`.
    public func validate(_ source: SourceFile, library: PlanLibrary? = nil) -> ValidationReport {
        PlanValidator.validate(source, limits: reading.limits, library: library ?? self.library())
    }

    /// The safe fixes of the plan file (or Arazzo document) at `path`, applied in memory and checked again
    /// with this pipeline's readers (`reqplan fix`; `PlanFixer`).
    /// - Parameter allowErrors: fix a file that keeps errors no fix fixes.
    public func fix(fileAt path: String, allowErrors: Bool = false) -> PlanFixResult {
        PlanFixer.fix(
            fileAt: path, limits: reading.limits, allowFilesOutside: reading.allowFilesOutside,
            allowErrors: allowErrors
        ) { unsaved in library(unsavedText: unsaved) }
    }

    // MARK: 3. Preparing

    /// Checks the plans of `suite` and resolves each one's inputs (`SuiteRun.prepare`).
    /// - Parameters:
    ///   - overrides: `name=value` texts (the command line's `--input`).
    ///   - inputsFile: an inputs file; names a plan does not declare are ignored.
    ///   - environmentName: the environment file `NAME.env.yaml` at the root of the plans' project.
    ///   - environment: the environment variables inputs may read.
    ///   - ignoringUndeclared: drop overrides a plan does not declare (the demo, suites).
    ///   - naming: how messages name the values given.
    public func prepare(
        _ suite: SuiteFiles, overrides: [String] = [], inputsFile: String? = nil, environmentName: String? = nil,
        environment: [String: String], ignoringUndeclared: Bool = false, naming: InputResolver.Naming = .library
    ) -> Result<[PlanRun.Prepared], PlanRun.PreparationError> {
        SuiteRun.prepare(
            suite, limits: reading.limits, overrides: overrides, inputsFile: inputsFile,
            environmentName: environmentName, environment: environment,
            allowFilesOutside: reading.allowFilesOutside, library: library(), ignoringUndeclared: ignoringUndeclared,
            naming: naming)
    }

    /// Checks the plan at `path` and makes it ready to run once per row of the data file at `dataPath`
    /// (`reqplan load --data`; `PlanRun.prepare(_:dataAt:…)`).
    public func prepare(
        fileAt path: String, dataAt dataPath: String, overrides: [String] = [], inputsFile: String? = nil,
        environmentName: String? = nil, environment: [String: String], naming: InputResolver.Naming = .library
    ) -> Result<DataInputs.Prepared, PlanRun.PreparationError> {
        PlanRun.prepare(
            validate(fileAt: path), dataAt: dataPath, overrides: overrides, inputsFile: inputsFile,
            environmentName: environmentName, environment: environment, limits: reading.limits, naming: naming)
    }

    // MARK: 4. Running

    /// Runs the prepared plans, up to `jobs` at once, over one HTTP transport built from `transport`, its
    /// connections per host sized for the plans (`sizingConnections`), and shut down after. Each plan of a
    /// suite keeps its cookies to itself and shares connections; a run of one plan has the transport's jar.
    /// Cancelling the calling task, or the supervisor, cancels the run; what was gathered is returned.
    /// - Parameters: as `SuiteRun.execute`'s.
    /// - Throws: an error of the transport's setup (a trust store that cannot be read).
    public func execute(
        _ plans: [PlanRun.Prepared], jobs: Int = 1, transport: HTTPClientTransport.Configuration,
        configuration: @escaping @Sendable (PlanRun.Prepared) -> RunConfiguration,
        observer: @escaping @Sendable (Int) -> any ExecutionObserver = { _ in NoObserver() },
        started: @escaping @Sendable (Int) -> Void = { _ in },
        finished: @escaping @Sendable (Int, SuiteRun.Outcome) -> Void = { _, _ in },
        refresh: (@Sendable () -> Void)? = nil, supervisor: any RunSupervisor = UnsupervisedRun()
    ) async throws -> SuiteRun.Result {
        let sized = Self.sizingConnections(transport, for: plans, configuration: configuration)
        // The `authorization_code` grant's redirect comes to a listener over NIO, unless the caller gave one.
        let listening = { @Sendable (prepared: PlanRun.Prepared) -> RunConfiguration in
            var settings = configuration(prepared)
            if settings.authorizationCode.listener == nil {
                settings.authorizationCode.listener = NIOLoopbackListener()
            }
            return settings
        }
        return try await HTTPClientTransport.with(sized) { client in
            await SuiteRun.execute(
                plans, jobs: jobs,
                transports: { _ in plans.count == 1 ? client : client.sharingConnections(cookies: CookieJar()) },
                configuration: listening, observer: observer, started: started, finished: finished,
                refresh: refresh, supervisor: supervisor)
        }
    }

    /// Runs one prepared plan over the HTTP transport (`execute(_:jobs:transport:…)` for one plan).
    public func execute(
        _ prepared: PlanRun.Prepared, configuration: RunConfiguration, transport: HTTPClientTransport.Configuration,
        observer: any ExecutionObserver = NoObserver(), refresh: (@Sendable () -> Void)? = nil,
        supervisor: any RunSupervisor = UnsupervisedRun()
    ) async throws -> RunResult {
        let ran = try await execute(
            [prepared], transport: transport, configuration: { _ in configuration }, observer: { _ in observer },
            refresh: refresh, supervisor: supervisor)
        return ran.outcomes[0].result
    }

    /// Runs `prepared` as a load (`reqplan load`) over one HTTP transport built from `transport`: every
    /// iteration shares its connections, and has a cookie jar of its own unless `profile.sharesCookies`.
    /// Unless the transport says how many, connections per host are as many as iterations may be in flight
    /// (users, or the cap of the open model), at least 8 and within the open-file limit. Each event loop has a
    /// pool of its own, with its share of them (`HTTPClientTransport.Configuration.poolPerEventLoop`).
    /// - Parameters:
    ///   - target: what was asked, as the report names it (`500/s for 30s`).
    ///   - inputs: iteration `n`'s inputs; `nil` ends the load (a data file ran out).
    ///   - inputsVary: whether `inputs` may differ from one iteration to the next (rows of a data file); if not,
    ///     a plan of one request is built once for every iteration (`LoadRun`).
    ///   - configuration: iteration `n`'s run settings.
    ///   - progress, abort: as `LoadRun.run`'s.
    /// - Throws: an error of the transport's setup (a trust store that cannot be read).
    public func executeLoad(
        _ prepared: PlanRun.Prepared, profile: LoadProfile, target: String,
        inputs: @escaping @Sendable (UInt64) -> RunInputs?, inputsVary: Bool = true,
        transport: HTTPClientTransport.Configuration, configuration: @escaping @Sendable (UInt64) -> RunConfiguration,
        progress: (@Sendable (LoadRun.Progress) -> Void)? = nil,
        abort: (@Sendable (LoadResult) -> String?)? = nil, supervisor: any RunSupervisor = UnsupervisedRun()
    ) async throws -> LoadResult {
        var sized = transport
        if sized.connectionsPerHost == nil {
            let wanted: Int
            switch profile.model {
            case .open: wanted = profile.maxInFlight
            case .closed(let users, _): wanted = users.peak
            }
            sized.connectionsPerHost = min(max(8, wanted), OpenFiles.connectionBudget ?? .max)
        }
        // Iterations run on the event loops in turn (`LoadRun.executors`): each sends on its loop's connections,
        // and an HTTP/2 server gets one connection per loop rather than one for the whole load.
        sized.poolPerEventLoop = true
        let sharesCookies = profile.sharesCookies
        return try await HTTPClientTransport.with(sized) { client in
            let counted: (@Sendable () -> UInt64)? =
                sized.client == .reqplan ? { @Sendable in client.connectionsOpened } : nil
            let load = LoadRun(
                graph: prepared.graph, profile: profile, target: target, inputs: inputs,
                transport: { secrets in
                    client.sharingConnections(
                        cookies: sharesCookies ? client.configuration.cookies : CookieJar(), secrets: secrets)
                },
                configuration: configuration,
                connections: counted, executors: client.taskExecutors, inputsVary: inputsVary)
            return await supervisor.supervise { await load.run(progress: progress, abort: abort) }
        }
    }

    /// Puts `text` (Prometheus text format) to the Pushgateway `push` names, over reqplan's HTTP client with
    /// `transport`'s TLS and proxy settings, on a connection of its own: no cookie, no redirect, the answer
    /// at most 1 MiB, the whole push within `push.timeout` (the connection's too).
    /// - Throws: `MetricsPush.Failure`: the gateway unreachable, silent past the timeout, or refusing.
    public func push(_ text: String, with push: MetricsPush, transport: HTTPClientTransport.Configuration)
        async throws(MetricsPush.Failure)
    {
        var settings = transport
        settings.client = .reqplan
        settings.cookies = CookieJar()
        settings.followRedirects = false
        settings.connectionsPerHost = 1
        settings.maxBodySize = 1 << 20
        settings.requestTimeout = push.timeout
        settings.connectTimeout = min(settings.connectTimeout, push.timeout)
        do {
            try await HTTPClientTransport.with(settings) { client in try await push.send(text, over: client) }
        } catch let failure as MetricsPush.Failure {
            throw failure
        } catch {
            throw MetricsPush.Failure("cannot push the figures to \(push.shownURL): \(error)")
        }
    }

    /// `transport` with its connections per host sized for `plans`, unless it says how many: as many as the
    /// largest concurrency limit asks (the run's `concurrency`, else each plan's own), at least 8; 64 for a
    /// plan without one; and no more than the process's open-file limit leaves room for (`OpenFiles`).
    /// Requests beyond them wait for a connection; more would only load the server, or fail for want of files.
    public static func sizingConnections(
        _ transport: HTTPClientTransport.Configuration, for plans: [PlanRun.Prepared],
        configuration: (PlanRun.Prepared) -> RunConfiguration
    ) -> HTTPClientTransport.Configuration {
        guard transport.connectionsPerHost == nil else { return transport }
        var sized = transport
        let widest =
            plans.map {
                configuration($0).concurrency ?? $0.graph.plan.concurrency?.value
                    ?? HTTPClientTransport.Configuration.defaultConnectionsPerHost
            }.max() ?? HTTPClientTransport.Configuration.defaultConnectionsPerHost
        sized.connectionsPerHost = min(max(8, widest), OpenFiles.connectionBudget ?? .max)
        return sized
    }
}
