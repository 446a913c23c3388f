import Foundation
import ReqPlanHTTP
import ReqPlanTransport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts a server with fresh ports, trying again with new ones when one was taken between
/// choosing it and the server binding it.
func startWithFreePorts<Server>(_ count: Int, _ start: ([Int]) async throws -> Server) async throws -> Server {
    var lastError: (any Error)?
    for _ in 0..<3 {
        do {
            return try await start(try ExternalServers.freePorts(count))
        } catch {
            lastError = error
        }
    }
    throw lastError ?? ServerError("no free ports")
}

// MARK: - nginx

/// nginx from Debian, on loopback: one process with a server per port.
///
/// On `plainPort` (HTTP) and `tlsPort` (HTTPS with the test CA's `server` certificate, HTTP/2
/// through ALPN), the same routes:
/// - `GET /json`: `{"ok":true,"server":"nginx"}`;
/// - `POST /login`: sets the cookie `session=<sessionToken>; Path=/; HttpOnly` and answers
///   `{"logged_in":true}` (other methods: 405); `POST /login-and-go` sets it too and
///   redirects (303) to `/me`;
/// - `GET /me`: `{"user":"alice"}` with that cookie, else 401 `{"error":"not logged in"}`;
/// - `GET /logout`: deletes the cookie (`Max-Age=0`), 204;
/// - `GET /repeated`: two `X-Multi` headers (`a`, `b`) and two cookies (`first=1`, `second=2`);
/// - `GET /delay/SECONDS` (when the echo module is installed): waits, then `{"ok":true}`;
///   `GET /slow-redirect/SECONDS` waits, then redirects (302) to `/delay/SECONDS`;
/// - `GET /files/NAME`: the file `NAME` of `filesFolder`, as `application/octet-stream` (a test
///   writes it there first; a sparse file serves a large body without using the disk).
///
/// `mtlsPort` answers `{"client":"<subject>"}` only to a client certificate the test CA signed
/// (nginx answers 400 at the HTTP level without one); `expiredPort`, `notYetValidPort`,
/// `wrongHostPort` and `selfSignedPort` present those certificates.
///
/// `http2LimitsPort` (HTTPS, HTTP/2) has low HTTP/2 limits: at most 3 streams at once
/// (`SETTINGS_MAX_CONCURRENT_STREAMS`; nginx refuses a stream beyond it and logs "concurrent
/// streams exceeded" in `http2-limits.log`) and 5 requests per connection (then GOAWAY). `GET /` answers
/// `{"connection":N}` (nginx's connection serial number; after 50 ms when the echo module is
/// installed); `GET /reset` resets its stream (`return 444`).
public final class Nginx: Sendable {
    public let process: ServerProcess
    public let certificates: TestCertificates
    public let plainPort: Int
    public let tlsPort: Int
    public let mtlsPort: Int
    public let expiredPort: Int
    public let notYetValidPort: Int
    public let wrongHostPort: Int
    public let selfSignedPort: Int
    public let http2LimitsPort: Int
    /// The session cookie's value `/login` sets (random per start).
    public let sessionToken: String
    /// Whether `/delay/SECONDS` exists (the echo module is installed).
    public let hasEcho: Bool

    /// `http://127.0.0.1:<plainPort>`
    public var plainURL: String { "http://127.0.0.1:\(plainPort)" }
    /// `https://127.0.0.1:<tlsPort>`
    public var tlsURL: String { "https://127.0.0.1:\(tlsPort)" }
    /// `https://127.0.0.1:<mtlsPort>`
    public var mtlsURL: String { "https://127.0.0.1:\(mtlsPort)" }
    /// The access log so far.
    public var accessLog: String { process.read("access.log") }
    /// The folder `GET /files/NAME` serves.
    public var filesFolder: URL { process.folder.appendingPathComponent("files") }
    /// What nginx logged (at level info) about the clients of `http2LimitsPort`.
    public var http2LimitsLog: String { process.read("http2-limits.log") }

    private static let started = SharedResource<Nginx> { try await Nginx.start() }

    /// The process's nginx, started on the first call.
    public static func shared() async throws -> Nginx {
        try await started.value()
    }

    /// Where Debian's echo module is, if installed.
    static let echoModule = "/usr/lib/nginx/modules/ngx_http_echo_module.so"

    /// Starts a new nginx.
    public static func start() async throws -> Nginx {
        try ExternalServers.require(.nginx)
        guard let program = ExternalServers.executable("nginx") else { throw ServerError("nginx is not installed") }
        let certificates = try await TestCertificates.shared()
        return try await startWithFreePorts(8) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("nginx")
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("files"), withIntermediateDirectories: true)
            let token = UUID().uuidString.lowercased()
            let hasEcho = FileManager.default.fileExists(atPath: echoModule)
            let config = configuration(
                folder: folder.path, ports: ports, token: token, certificates: certificates,
                echo: hasEcho)
            try config.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = try await ServerProcess.start(
                name: "nginx", program: program,
                arguments: [
                    "-p", folder.path, "-c", folder.appendingPathComponent("nginx.conf").path,
                    "-e", folder.appendingPathComponent("error.log").path, "-g", "daemon off;",
                ],
                folder: folder, ports: ports)
            return Nginx(process: process, certificates: certificates, ports: ports, token: token, hasEcho: hasEcho)
        }
    }

    private init(process: ServerProcess, certificates: TestCertificates, ports: [Int], token: String, hasEcho: Bool) {
        self.process = process
        self.certificates = certificates
        (plainPort, tlsPort, mtlsPort, expiredPort) = (ports[0], ports[1], ports[2], ports[3])
        (notYetValidPort, wrongHostPort, selfSignedPort, http2LimitsPort) = (ports[4], ports[5], ports[6], ports[7])
        sessionToken = token
        self.hasEcho = hasEcho
    }

    /// Stops it.
    public func stop() { process.stop() }

    private static func configuration(
        folder: String, ports: [Int], token: String, certificates: TestCertificates,
        echo: Bool
    ) -> String {
        func tls(_ pair: TestCertificates.Pair) -> String {
            "ssl_certificate \(pair.certificate.path); ssl_certificate_key \(pair.key.path);"
        }
        let routes = """
                    default_type application/json;
                    location = /json { return 200 '{"ok":true,"server":"nginx"}'; }
                    location = /login {
                        if ($request_method != POST) { return 405 '{"error":"POST only"}'; }
                        add_header Set-Cookie "session=\(token); Path=/; HttpOnly" always;
                        return 200 '{"logged_in":true}';
                    }
                    location = /login-and-go {
                        add_header Set-Cookie "session=\(token); Path=/; HttpOnly" always;
                        return 303 /me;
                    }
                    location = /me {
                        if ($cookie_session != "\(token)") { return 401 '{"error":"not logged in"}'; }
                        return 200 '{"user":"alice"}';
                    }
                    location = /logout {
                        add_header Set-Cookie "session=; Path=/; Max-Age=0" always;
                        return 204;
                    }
                    location /files/ { alias \(folder)/files/; default_type application/octet-stream; }
                    location = /repeated {
                        add_header X-Multi a;
                        add_header X-Multi b;
                        add_header Set-Cookie "first=1; Path=/";
                        add_header Set-Cookie "second=2; Path=/";
                        return 200 '{"repeated":true}';
                    }
            """
            + (echo
                ? """

                        location ~ ^/delay/(?<seconds>[0-9.]+)$ { echo_sleep $seconds; echo '{"ok":true}'; }
                        location ~ ^/slow-redirect/(?<seconds>[0-9.]+)$ {
                            echo_status 302;
                            add_header Location /delay/$seconds;
                            echo_sleep $seconds;
                            echo '{}';
                        }
                """ : "")
        let simple = { (port: Int, pair: TestCertificates.Pair) in
            """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    \(tls(pair))
                    default_type application/json;
                    location / { return 200 '{"ok":true}'; }
                }
            """
        }
        return """
            \(geteuid() == 0 ? "user root;" : "")
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            \(echo ? "load_module \(echoModule);" : "")
            events { worker_connections 1024; }
            http {
                access_log \(folder)/access.log;
                client_body_temp_path \(folder)/body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
                keepalive_requests 100000;
                server {
                    listen 127.0.0.1:\(ports[0]);
                    listen 127.0.0.1:\(ports[1]) ssl http2;
                    \(tls(certificates.server))
            \(routes)
                }
                server {
                    listen 127.0.0.1:\(ports[2]) ssl;
                    \(tls(certificates.server))
                    ssl_client_certificate \(certificates.ca.path);
                    ssl_verify_client on;
                    default_type application/json;
                    location / { return 200 '{"client":"$ssl_client_s_dn"}'; }
                }
            \(simple(ports[3], certificates.expired))
            \(simple(ports[4], certificates.notYetValid))
            \(simple(ports[5], certificates.wrongHost))
            \(simple(ports[6], certificates.selfSigned))
                server {
                    listen 127.0.0.1:\(ports[7]) ssl http2;
                    \(tls(certificates.server))
                    error_log \(folder)/http2-limits.log info;
                    http2_max_concurrent_streams 3;
                    keepalive_requests 5;
                    default_type application/json;
                    location = /reset { return 444; }
                    location / {
                        \(echo ? "echo_sleep 0.05; echo '{\"connection\":$connection}';" : "return 200 '{\"connection\":$connection}';")
                    }
                }
            }
            """
    }
}

// MARK: - openssl s_server

/// `openssl s_server` with the test CA's `server` certificate, requiring a client certificate the
/// test CA signed *during the handshake* (`-Verify 1`): without one, the connection fails with a
/// TLS alert (`certificate required`), where nginx would finish the handshake and answer 400.
/// `GET /` answers an HTML status page; one connection at a time.
public final class HandshakeClientCertificateServer: Sendable {
    public let process: ServerProcess
    public let port: Int
    public let certificates: TestCertificates

    /// `https://127.0.0.1:<port>`
    public var url: String { "https://127.0.0.1:\(port)" }

    /// Starts a new one.
    public static func start() async throws -> HandshakeClientCertificateServer {
        try ExternalServers.require(.openssl)
        guard let program = ExternalServers.executable("openssl") else { throw ServerError("openssl is not installed") }
        let certificates = try await TestCertificates.shared()
        return try await startWithFreePorts(1) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("s_server")
            let process = try await ServerProcess.start(
                name: "s_server", program: program,
                arguments: [
                    "s_server", "-accept", "127.0.0.1:\(ports[0])", "-cert", certificates.server.certificate.path,
                    "-key", certificates.server.key.path, "-CAfile", certificates.ca.path, "-Verify", "1",
                    "-www", "-quiet",
                ],
                folder: folder, ports: ports)
            return HandshakeClientCertificateServer(process: process, port: ports[0], certificates: certificates)
        }
    }

    private init(process: ServerProcess, port: Int, certificates: TestCertificates) {
        self.process = process
        self.port = port
        self.certificates = certificates
    }

    /// Stops it.
    public func stop() { process.stop() }
}

// MARK: - tinyproxy

/// tinyproxy from Debian: a real forward proxy on loopback. Its log (`log`, `requests`) has one
/// line per request it received: `GET http://host:port/path HTTP/1.1` for plain HTTP (absolute
/// form) and `CONNECT host:port HTTP/1.1` for HTTPS.
public final class Tinyproxy: Sendable {
    public let process: ServerProcess
    public let port: Int

    /// `http://127.0.0.1:<port>`
    public var url: String { "http://127.0.0.1:\(port)" }
    /// `127.0.0.1:<port>`, as messages name it.
    public var hostPort: String { "127.0.0.1:\(port)" }
    /// Everything it logged so far.
    public var log: String { process.read("tinyproxy.log") }

    /// The request lines it received, in order ("GET http://127.0.0.1:8080/x HTTP/1.1").
    public var requests: [String] {
        log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "Request (file descriptor ") else { return nil }
            guard let colon = line[range.upperBound...].range(of: "): ") else { return nil }
            return String(line[colon.upperBound...])
        }
    }

    /// Starts a new tinyproxy.
    /// - Parameters:
    ///   - credentials: a user and password it requires (`Proxy-Authorization: Basic`), else none.
    ///   - connectPorts: the only ports it lets `CONNECT` reach (others get 403); empty: any.
    public static func start(credentials: (user: String, password: String)? = nil, connectPorts: [Int] = [])
        async throws -> Tinyproxy
    {
        try ExternalServers.require(.tinyproxy)
        guard let program = ExternalServers.executable("tinyproxy") else {
            throw ServerError("tinyproxy is not installed")
        }
        return try await startWithFreePorts(1) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("tinyproxy")
            var config = """
                Port \(ports[0])
                Listen 127.0.0.1
                Timeout 30
                LogFile "\(folder.path)/tinyproxy.log"
                LogLevel Connect
                PidFile "\(folder.path)/tinyproxy.pid"
                MaxClients 200
                Allow 127.0.0.1
                DisableViaHeader Yes

                """
            if let credentials { config += "BasicAuth \(credentials.user) \(credentials.password)\n" }
            for port in connectPorts { config += "ConnectPort \(port)\n" }
            let path = folder.appendingPathComponent("tinyproxy.conf")
            try config.write(to: path, atomically: true, encoding: .utf8)
            let process = try await ServerProcess.start(
                name: "tinyproxy", program: program,
                arguments: ["-d", "-c", path.path], folder: folder, ports: ports)
            return Tinyproxy(process: process, port: ports[0])
        }
    }

    private init(process: ServerProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// Stops it.
    public func stop() { process.stop() }
}

// MARK: - httpbin

/// httpbin (PyPI) under gunicorn on loopback: the server HTTP client libraries test themselves
/// against (`/cookies/set`, `/basic-auth/u/p`, `/bearer`, `/redirect-to`, `/response-headers`,
/// `/xml`, `/html`, `/gzip`, …).
public final class Httpbin: Sendable {
    public let process: ServerProcess
    public let port: Int

    /// `http://127.0.0.1:<port>`
    public var url: String { "http://127.0.0.1:\(port)" }

    private static let started = SharedResource<Httpbin> { try await Httpbin.start() }

    /// The process's httpbin, started on the first call.
    public static func shared() async throws -> Httpbin {
        try await started.value()
    }

    /// Starts a new httpbin.
    public static func start() async throws -> Httpbin {
        try ExternalServers.require(.httpbin)
        guard let python = ExternalServers.executable("python3") else { throw ServerError("python3 is not installed") }
        return try await startWithFreePorts(1) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("httpbin")
            let process = try await ServerProcess.start(
                name: "httpbin", program: python,
                arguments: [
                    "-m", "gunicorn", "--bind", "127.0.0.1:\(ports[0])", "--workers", "1", "--threads", "8",
                    "--access-logfile", folder.appendingPathComponent("access.log").path, "httpbin:app",
                ],
                folder: folder, ports: ports, limit: .seconds(60))
            return Httpbin(process: process, port: ports[0])
        }
    }

    private init(process: ServerProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// Stops it.
    public func stop() { process.stop() }
}

// MARK: - Pushgateway

/// The Prometheus Pushgateway (Debian's `prometheus-pushgateway`) on loopback, keeping what is pushed in
/// memory: `GET /metrics` shows every group's series with their grouping labels.
public final class Pushgateway: Sendable {
    public let process: ServerProcess
    public let port: Int

    /// `http://127.0.0.1:<port>`
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Starts a new Pushgateway (one per test: what one test pushes is not another's).
    public static func start() async throws -> Pushgateway {
        try ExternalServers.require(.pushgateway)
        guard let program = ExternalServers.executable(ExternalServers.Tool.pushgateway.rawValue) else {
            throw ServerError("prometheus-pushgateway is not installed")
        }
        return try await startWithFreePorts(1) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("pushgateway")
            let process = try await ServerProcess.start(
                name: "pushgateway", program: program,
                arguments: ["--web.listen-address=127.0.0.1:\(ports[0])", "--log.level=warn"],
                folder: folder, ports: ports)
            return Pushgateway(process: process, port: ports[0])
        }
    }

    private init(process: ServerProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// Stops it.
    public func stop() { process.stop() }
}
