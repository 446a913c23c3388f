import Foundation
import ReqPlanTestSupport
import Testing

/// The third-party servers the transport tests use start, answer as described and stop.
@Suite(.timeSensitive) struct ExternalServerTests {
    @Test(ExternalServers.needed(.openssl))
    func testCertificatesHaveTheDatesAndNamesTheySay() throws {
        let certificates = try TestCertificates.make()
        func text(_ pair: TestCertificates.Pair) throws -> String {
            try runCommand(
                "openssl",
                [
                    "x509", "-in", pair.certificate.path, "-noout", "-dates", "-ext",
                    "subjectAltName",
                ]
            ).output
        }
        #expect(try text(certificates.expired).contains("notAfter=Feb  1 00:00:00 2020 GMT"))
        #expect(try text(certificates.notYetValid).contains("notBefore=Jan  1 00:00:00 2100 GMT"))
        #expect(try text(certificates.wrongHost).contains("DNS:other.example"))
        #expect(try text(certificates.server).contains("IP Address:127.0.0.1"))
        let verify = { (pair: TestCertificates.Pair) in
            try runCommand("openssl", ["verify", "-CAfile", certificates.ca.path, pair.certificate.path])
        }
        #expect(try verify(certificates.server).status == 0)
        #expect(try verify(certificates.client).status == 0)
        #expect(try verify(certificates.expired).output.contains("expired"))
        #expect(try verify(certificates.selfSigned).status != 0)
        #expect(try verify(certificates.otherClient).status != 0)
    }

    @Test(ExternalServers.needed(.nginx, .openssl, .curl))
    func nginxServesTheSessionAPIOverHTTPAndHTTPS() async throws {
        let nginx = try await Nginx.shared()
        let plain = try runCommand("curl", ["-s", "\(nginx.plainURL)/json"]).output
        #expect(plain == #"{"ok":true,"server":"nginx"}"#)
        let login = try runCommand(
            "curl",
            [
                "-s", "-i", "--http2", "--cacert", nginx.certificates.ca.path,
                "-X", "POST", "\(nginx.tlsURL)/login",
            ]
        ).output
        #expect(login.hasPrefix("HTTP/2 200"))
        #expect(login.contains("set-cookie: session=\(nginx.sessionToken); Path=/; HttpOnly"))
        let anonymous = try runCommand(
            "curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}",
                "\(nginx.plainURL)/me",
            ]
        ).output
        #expect(anonymous == "401")
        let known = try runCommand("curl", ["-s", "-b", "session=\(nginx.sessionToken)", "\(nginx.plainURL)/me"])
        #expect(known.output == #"{"user":"alice"}"#)
        #expect(nginx.accessLog.contains("GET /me"))
    }

    @Test(ExternalServers.needed(.tinyproxy, .nginx, .openssl, .curl))
    func tinyproxyLogsAbsoluteFormRequestsAndConnects() async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        #expect(
            try runCommand("curl", ["-s", "-x", proxy.url, "\(nginx.plainURL)/json"]).output
                .contains("nginx"))
        #expect(
            try runCommand(
                "curl",
                [
                    "-s", "-x", proxy.url, "--cacert", nginx.certificates.ca.path,
                    "\(nginx.tlsURL)/json",
                ]
            ).output.contains("nginx"))
        #expect(
            proxy.requests == ["GET \(nginx.plainURL)/json HTTP/1.1", "CONNECT 127.0.0.1:\(nginx.tlsPort) HTTP/1.1"])
    }

    @Test(ExternalServers.needed(.httpbin, .curl))
    func httpbinAnswersUnderGunicorn() async throws {
        let httpbin = try await Httpbin.shared()
        let output = try runCommand("curl", ["-s", "\(httpbin.url)/cookies/set?a=1", "-c", "-"]).output
        #expect(output.contains("\ta\t1"))
    }

    @Test(ExternalServers.needed(.tinyproxy))
    func aServerInheritsNoDescriptorOfTheTestProcess() async throws {
        // A pipe open while the server starts, as a test reading a child's output has one.
        let pipe = Pipe()
        let ours = try FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/fd/\(pipe.fileHandleForWriting.fileDescriptor)")
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        let folder = "/proc/\(proxy.process.pid)/fd"
        let theirs = try FileManager.default.contentsOfDirectory(atPath: folder).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")
        }
        #expect(ours.hasPrefix("pipe:"))
        #expect(!theirs.isEmpty && !theirs.contains(ours), "\(theirs)")
        try pipe.fileHandleForWriting.close()
    }

    @Test(ExternalServers.needed(.tinyproxy))
    func aStoppedServerNoLongerListens() async throws {
        let proxy = try await Tinyproxy.start()
        #expect(ExternalServers.isListening(proxy.port))
        // The server itself is the watchdog's child.
        let server = try #require(Self.children(of: proxy.process.pid).first)
        proxy.stop()
        // Its process ends, and with it every socket it listened on. (Not checked by its port: under a
        // loaded suite another server may be given the same free port a moment later, which once failed
        // this test in CI with tinyproxy gone.)
        let end = ContinuousClock.now + .seconds(15)
        while Self.isRunning(server), ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!Self.isRunning(server))
    }

    /// The processes whose parent is `pid`, from `/proc`.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { status(of: $0)?.parent == pid }
    }

    /// Whether `pid` runs (a process that ended but was not yet reaped does not).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let state = status(of: pid)?.state else { return false }
        return state != "Z" && state != "X"
    }

    /// The state and parent of `pid` (`/proc/PID/stat`: the fields after the command's closing parenthesis).
    static func status(of pid: Int32) -> (state: Substring, parent: Int32)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let parent = Int32(fields[1]) else { return nil }
        return (fields[0], parent)
    }
}
