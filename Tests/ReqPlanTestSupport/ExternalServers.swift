import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Third-party programs the tests run as real servers on loopback: nginx (plain HTTP, HTTPS
/// with a test CA and HTTP/2, client certificates, a session API), tinyproxy (a forward proxy
/// whose log shows each request), httpbin (under gunicorn) and the Prometheus Pushgateway, with
/// certificates made by the openssl command.
///
/// Each server gets free loopback ports and its configuration in a fresh temporary folder, is
/// waited for on its port (never a sleep) and is stopped when the test process exits, however
/// it exits: a small shell watchdog stops it when the test process is gone, and `stop()` or
/// the exit handler stop it earlier.
///
/// A test that needs one says so with a trait, `@Test(ExternalServers.needed(.nginx))`: where the tool
/// is missing it is skipped, and the skip says which tool is missing and how to get it, unless
/// `REQPLAN_REQUIRE_SERVERS=1` (set by `.ci/run`, which installs them), where it runs and fails.
public enum ExternalServers {
    /// A third-party program a test can need.
    public enum Tool: String, Sendable, CaseIterable {
        case nginx, tinyproxy, openssl, curl
        /// PyPI `httpbin` run by PyPI `gunicorn`, through `python3`.
        case httpbin
        /// PyPI `connexion` (with its `flask` and `uvicorn` extras), which serves an OpenAPI description's
        /// examples with `--mock=all`.
        case connexion
        /// PyPI `haralyzer`, which reads HAR files back (`scripts/check-har.py`).
        case haralyzer
        /// Chromium and its driver (Debian) with PyPI `selenium`: a real browser for the HTML report
        /// (`scripts/check-html-report.py`).
        case browser
        /// PyPI `pytest-lsp`: a real LSP client library, driving `reqplan lsp` (`Tests/lsp`).
        case pytestLSP
        /// Neovim (Debian), whose built-in LSP client drives `reqplan lsp` (`Tests/lsp/neovim`).
        case neovim
        /// PyPI `django-oauth-toolkit` with `djangorestframework`: a real OAuth 2.0 and OpenID Connect provider and a
        /// resource it protects (`DjangoOAuthProvider`).
        case oauthProvider
        /// PyPI `moto[server]`: the AWS mock, run as a server that checks Signature Version 4 (`MotoServer`).
        case moto
        /// PyPI `botocore`: AWS's Python SDK core, whose signer `scripts/sigv4-botocore.py` runs.
        case botocore
        /// PyPI `authlib` with `flask`: an OAuth 2.0 authorization server that takes `private_key_jwt` client
        /// assertions (`AuthlibProvider`), which django-oauth-toolkit does not.
        case authlib
        /// PyPI `prometheus-client`, whose OpenMetrics parser reads `reqplan load --report openmetrics:` back.
        case prometheusClient = "prometheus-client"
        /// The Prometheus Pushgateway (Debian `prometheus-pushgateway`), which `reqplan load --push` puts to.
        case pushgateway = "prometheus-pushgateway"
        /// PyPI `arazzo-runner` (Jentic's): another Arazzo runner, which runs what `reqplan export arazzo` writes.
        case arazzoRunner = "arazzo-runner"

        /// What a skipped test calls it.
        public var name: String {
            switch self {
            case .nginx, .tinyproxy, .openssl, .curl, .httpbin, .connexion, .haralyzer, .moto, .botocore, .authlib,
                .prometheusClient, .pushgateway, .arazzoRunner:
                rawValue
            case .browser: "a browser (Chromium, its driver and selenium)"
            case .pytestLSP: "pytest-lsp"
            case .neovim: "Neovim"
            case .oauthProvider: "django-oauth-toolkit"
            }
        }

        /// How to install it (Debian's packages and PyPI's, as `.ci/run` does).
        public var howToGet: String {
            switch self {
            case .nginx: "apt-get install nginx libnginx-mod-http-echo"
            case .tinyproxy, .openssl, .curl, .neovim, .pushgateway: "apt-get install \(rawValue)"
            case .httpbin: "python3 -m pip install httpbin gunicorn"
            case .connexion: "python3 -m pip install 'connexion[flask,uvicorn,swagger-ui]'"
            case .haralyzer: "python3 -m pip install haralyzer"
            case .browser: "apt-get install chromium chromium-driver, and python3 -m pip install selenium"
            case .pytestLSP: "python3 -m pip install pytest-lsp"
            case .oauthProvider: "python3 -m pip install django-oauth-toolkit djangorestframework"
            case .moto: "python3 -m pip install 'moto[server]'"
            case .botocore: "python3 -m pip install botocore"
            case .authlib: "python3 -m pip install authlib flask"
            case .prometheusClient: "python3 -m pip install prometheus-client"
            case .arazzoRunner: "python3 -m pip install 'arazzo-runner==0.9.6'"
            }
        }

        /// The Python modules it is made of (none for a program).
        var pythonModules: [String] {
            switch self {
            case .httpbin: ["httpbin", "gunicorn"]
            case .connexion: ["connexion", "flask", "uvicorn", "yaml"]
            case .haralyzer: ["haralyzer"]
            case .browser: ["selenium"]
            case .pytestLSP: ["pytest_lsp"]
            case .oauthProvider: ["oauth2_provider", "django", "rest_framework"]
            // moto's server is Flask with flask-cors (the `server` extra); its start makes the IAM user with boto3.
            case .moto: ["moto", "flask", "flask_cors", "boto3"]
            case .botocore: ["botocore"]
            case .authlib: ["authlib", "flask", "cryptography"]
            case .prometheusClient: ["prometheus_client"]
            case .arazzoRunner: ["arazzo_runner"]
            case .nginx, .tinyproxy, .openssl, .curl, .neovim, .pushgateway: []
            }
        }
    }

    /// Whether a missing tool fails the tests that need it (`REQPLAN_REQUIRE_SERVERS=1`, set in CI).
    public static var required: Bool { ProcessInfo.processInfo.environment["REQPLAN_REQUIRE_SERVERS"] == "1" }

    /// Whether tests needing `tools` should run: all of them are installed, or they are required.
    public static func canRun(_ tools: Tool...) -> Bool {
        canRun(tools)
    }

    /// Whether tests needing `tools` should run: all of them are installed, or they are required.
    public static func canRun(_ tools: [Tool]) -> Bool {
        required || tools.allSatisfy(isInstalled)
    }

    /// The trait of a test that needs `tools`: it runs where they are installed (or required), and is
    /// skipped elsewhere with the reason: which of them are missing, and how to get them.
    public static func needed(_ tools: Tool...) -> ConditionTrait {
        .enabled(if: canRun(tools), Comment(rawValue: required ? "" : skipReason(tools)))
    }

    /// Why a test needing `tools` is skipped: the tools it needs, those missing here, and how to get them.
    /// Looked up with a quick look, not by running them (the trait of every test is made when the tests
    /// are listed): programs on the `PATH`, and Python modules `python3` can find.
    static func skipReason(_ tools: [Tool]) -> String {
        let missing = tools.filter { !seemsInstalled($0) }
        let needs = "needs " + tools.map(\.name).joined(separator: ", ")
        guard !missing.isEmpty else {
            // Programs are looked up as `isInstalled` does: only a Python module can be found but not imported.
            let modules = tools.flatMap(\.pythonModules).joined(separator: ", ")
            return needs
                + ", found here, but python3 cannot import them: see what `python3 -c 'import \(modules)'` says"
        }
        let get = missing.map { "\($0.name) (\($0.howToGet))" }.joined(separator: ", ")
        return needs + "; missing here: " + get
            + "; .ci/run installs every tool the tests use, and REQPLAN_REQUIRE_SERVERS=1 runs the test anyway, to fail"
    }

    /// Whether `tool` looks installed, without running it: its programs on the `PATH`, its Python modules
    /// findable by `python3` (one `python3` for all of them, once per process).
    static func seemsInstalled(_ tool: Tool) -> Bool {
        switch tool {
        case .nginx, .tinyproxy, .openssl, .curl, .pushgateway: return executable(tool.rawValue) != nil
        case .neovim: return executable("nvim") != nil
        case .browser:
            return FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
                && !missingPythonModules.contains("selenium")
        case .httpbin, .connexion, .haralyzer, .pytestLSP, .oauthProvider, .moto, .botocore, .authlib,
            .prometheusClient, .arazzoRunner:
            return tool.pythonModules.allSatisfy { !missingPythonModules.contains($0) }
        }
    }

    /// The Python modules of every tool that `python3` cannot find (all of them without `python3`).
    static let missingPythonModules: Set<String> = {
        let modules = Tool.allCases.flatMap(\.pythonModules)
        let probe = """
            import importlib.util, sys
            print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))
            """
        guard let found = try? runCommand("python3", ["-c", probe] + modules), found.status == 0 else {
            return Set(modules)
        }
        return Set(found.output.split(whereSeparator: \.isWhitespace).map(String.init))
    }()

    /// Whether `tool` can be run here (looked up once per process).
    public static func isInstalled(_ tool: Tool) -> Bool {
        installed.withLock { cache in
            if let known = cache[tool] { return known }
            let found: Bool
            switch tool {
            case .browser:
                found =
                    (try? runCommand("python3", ["-c", "import selenium"]).status) == 0
                    && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            case .neovim:
                found = executable("nvim") != nil
            case .nginx, .tinyproxy, .openssl, .curl, .pushgateway:
                found = executable(tool.rawValue) != nil
            case .httpbin, .connexion, .haralyzer, .pytestLSP, .oauthProvider, .moto, .botocore, .authlib,
                .prometheusClient, .arazzoRunner:
                let modules = tool.pythonModules.joined(separator: ", ")
                found = (try? runCommand("python3", ["-c", "import \(modules)"]).status) == 0
            }
            cache[tool] = found
            return found
        }
    }

    private static let installed = Mutex<[Tool: Bool]>([:])

    /// The full path of a program on `PATH` (and in the `sbin` folders, where Debian puts nginx).
    public static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Fails with a clear message when `tool` is missing (a test only gets here when it is
    /// installed or required).
    static func require(_ tool: Tool) throws {
        guard isInstalled(tool) else { throw ServerError("\(tool.rawValue) is not installed (.ci/run installs it)") }
    }

    /// A new private temporary folder, removed when the test process exits.
    public static func makeTemporaryFolder(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("reqplan-\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        ServerRegistry.removeAtExit(folder)
        return folder
    }

    /// Ports nobody listens on now: each bound on 127.0.0.1 with port 0 and closed again. The
    /// server that gets them binds them a moment later; `start` tries again with new ports if
    /// one was taken meanwhile.
    public static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            #if canImport(Glibc)
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard fd >= 0 else { throw ServerError("socket() failed: errno \(errno)") }
            sockets.append(fd)  // kept open until all are chosen, so no port is handed out twice
            var address = loopback(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw ServerError("bind() failed: errno \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Why a server could not be started.
public struct ServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A server process started by a test, with its folder (configuration, logs) and ports.
public final class ServerProcess: Sendable {
    /// What it is, for messages ("nginx").
    public let name: String
    /// Its temporary folder: configuration, certificates, logs.
    public let folder: URL
    /// The watchdog shell's process id (the server is its child).
    public let pid: Int32
    /// Where the server's own standard output and error go.
    let consoleLog: URL

    /// Starts `program arguments…` under a watchdog that stops it when the test process exits,
    /// then waits until every port in `ports` accepts connections.
    /// - Throws: `ServerError` with the server's own output when it exits or does not listen
    ///   within `limit`.
    static func start(
        name: String, program: String, arguments: [String], folder: URL, ports: [Int],
        limit: Duration = .seconds(20)
    ) async throws -> ServerProcess {
        let consoleLog = folder.appendingPathComponent("\(name).console.log")
        // The watchdog: runs the server in the background, stops it (TERM, then KILL after 2 s)
        // when told to (TERM, INT, HUP) or when the test process is gone, checked every second.
        let watchdog = """
            parent=$1; shift
            "$@" &
            child=$!
            stop() {
              kill -TERM "$child" 2>/dev/null
              i=0
              while kill -0 "$child" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done
              kill -KILL "$child" 2>/dev/null
              exit 0
            }
            trap stop TERM INT HUP
            while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 1 & wait $!; done
            stop
            """
        let pid = try spawn(
            ["/bin/sh", "-c", watchdog, "watchdog", String(getpid()), program] + arguments,
            output: consoleLog.path)
        let server = ServerProcess(name: name, folder: folder, pid: pid, consoleLog: consoleLog)
        ServerRegistry.add(server.pid)
        let end = ContinuousClock.now + limit
        while !ports.allSatisfy(ExternalServers.isListening) {
            guard server.isRunning, ContinuousClock.now < end else {
                server.stop()
                let output = (try? String(contentsOf: consoleLog, encoding: .utf8)) ?? ""
                throw ServerError("\(name) did not start listening on \(ports) (its output: \(output))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return server
    }

    /// Starts `arguments` (the program first, by path) with standard input from /dev/null and
    /// both outputs appended to `output`. Through `posix_spawn` rather than Foundation's
    /// `Process`, to give the child an empty signal mask and default handlers: a child inherits
    /// the mask of the thread that starts it, and the test's threads block most signals, which
    /// would leave the watchdog and the server deaf to SIGTERM.
    private static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else the test process has open goes to the server: a server holding the write end
        // of a pipe another test reads to its end (a `reqplan` child's output, say) would keep that
        // test waiting for as long as the server lives.
        closeOtherDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, cArguments, environ)
        guard status == 0 else { throw ServerError("cannot start \(arguments[0]): error \(status)") }
        return pid
    }

    /// Adds "close every descriptor from 3 on" to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34+; looked up at run time, as Swift's Glibc
    /// module does not declare it), else a close of each descriptor open now.
    private static func closeOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// Whether the watchdog (and so the server) is still running; reaps it once it has exited.
    var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    private init(name: String, folder: URL, pid: Int32, consoleLog: URL) {
        self.name = name
        self.folder = folder
        self.pid = pid
        self.consoleLog = consoleLog
    }

    /// Stops the server (its watchdog stops it and exits).
    public func stop() {
        kill(pid, SIGTERM)
        ServerRegistry.remove(pid)
    }

    /// The text of a file in the server's folder (a log), empty when it does not exist.
    public func read(_ name: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// What the server printed on its standard output and error.
    public var console: String {
        (try? String(contentsOf: consoleLog, encoding: .utf8)) ?? ""
    }
}

/// The watchdogs still running and the temporary folders made, stopped and removed by an exit
/// handler when the test process exits normally (a crash leaves the watchdogs to notice within a
/// second, and the folders behind).
enum ServerRegistry {
    private static let pids = Mutex<Set<Int32>>([])
    private static let folders = Mutex<[URL]>([])
    private static let installExitHandler: Void = {
        atexit { ServerRegistry.stopAll() }
    }()

    static func add(_ pid: Int32) {
        _ = installExitHandler
        pids.withLock { _ = $0.insert(pid) }
    }

    static func remove(_ pid: Int32) {
        pids.withLock { _ = $0.remove(pid) }
    }

    /// Removes `folder` when the test process exits (after its servers are told to stop).
    static func removeAtExit(_ folder: URL) {
        _ = installExitHandler
        folders.withLock { $0.append(folder) }
    }

    static func stopAll() {
        for pid in pids.withLock({ $0 }) { kill(pid, SIGTERM) }
        for folder in folders.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
    }
}

/// A value made once per test process, on first use, and shared by every test that asks for
/// it (a server a whole suite uses). A failure to make it is shared too.
public actor SharedResource<Value: Sendable> {
    private var making: Task<Value, any Error>?
    private let make: @Sendable () async throws -> Value

    /// A resource `make` makes on the first `value()`.
    public init(_ make: @escaping @Sendable () async throws -> Value) {
        self.make = make
    }

    /// The value, made now if this is the first call.
    public func value() async throws -> Value {
        if let making { return try await making.value }
        // Unstructured on purpose: the value outlives the test that first asks for it, and
        // every later test waits for the same start.
        let task = Task { [make] in try await make() }
        making = task
        return try await task.value
    }
}
