import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan load` against nginx (Debian's, on loopback): both models start the iterations they should and
/// count every step of each; each iteration has its own session cookie; the shards' JSON reports merge into
/// one; the OpenMetrics report reads back in prometheus-client's parser; Ctrl-C and the grace after the end
/// stop a load whose server hangs; hostile settings are refused before anything is sent. (Figures such as
/// rates and percentiles live in BENCHMARKS.md, not here.)
@Suite(.timeSensitive) struct LoadCommandTests {
    /// A session per iteration: `/login` sets the cookie, `/me` answers 200 only with it.
    static func sessionPlan(base: String) -> String {
        """
        reqplan: 1
        inputs:
          base_url: { default: "\(base)" }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          login:
            request: { method: POST, url: /login }
          me:
            needs: [login]
            request: { url: /me }
            expect: { status: 200, body: { user: alice } }
          json:
            request: { url: /json }
        """
    }

    /// The JSON report `path` holds.
    static func report(_ path: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: path)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The `runs` (succeeded + failed) and `failed` of a subject of a report.
    static func runs(_ figures: Any?) -> (runs: Int, failed: Int) {
        let figures = figures as? [String: Any] ?? [:]
        let succeeded = figures["succeeded"] as? Int ?? -1
        let failed = figures["failed"] as? Int ?? -1
        return (succeeded + failed, failed)
    }

    static func step(_ report: [String: Any], _ id: String) -> Any? {
        (report["steps"] as? [[String: Any]])?.first { $0["id"] as? String == id }?["figures"]
    }

    private func load(
        _ plan: String, _ arguments: [String], environment: [String: String] = [:],
        within limit: Duration = .seconds(120)
    ) async throws -> (CommandRunner.Output, URL) {
        try await load(file: try CommandRunner.temporaryPlan(plan), arguments, environment: environment, within: limit)
    }

    private func load(
        file: URL, _ arguments: [String], environment: [String: String] = [:], within limit: Duration = .seconds(120)
    ) async throws -> (CommandRunner.Output, URL) {
        let report = file.deletingLastPathComponent().appendingPathComponent("load-\(UUID().uuidString).json")
        let output = try await CommandRunner.run(
            ["load", file.path, "--progress", "none", "--report", "json:\(report.path)"] + arguments,
            environment: environment.merging(["no_proxy": "*"]) { mine, _ in mine }, within: limit)
        #expect(!output.killedAfterTimeout)
        return (output, report)
    }

    /// The open model starts exactly rate × duration iterations, each with its own login session (the `me`
    /// step passes only with the cookie its own `login` got), and counts every step of every one.
    @Test(ExternalServers.needed(.nginx))
    func theOpenModelStartsRateTimesDurationIterationsEachWithItsOwnSession() async throws {
        let nginx = try await Nginx.shared()
        let page = try ExternalServers.makeTemporaryFolder("load-html").appendingPathComponent("load.html")
        let (output, path) = try await load(
            Self.sessionPlan(base: nginx.plainURL),
            ["--rate", "40/s", "--duration", "2s", "--report", "html:\(page.path)"])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        let report = try Self.report(path)
        #expect(report["model"] as? String == "open")
        #expect(Self.runs(report["iteration"]) == (80, 0), "\(output.stdout)")
        for id in ["login", "me", "json"] { #expect(Self.runs(Self.step(report, id)) == (80, 0), "\(id)") }
        #expect(report["dropped"] as? Int == 0 && report["late"] as? Int == 0)
        #expect((report["connections"] as? Int ?? 0) >= 1, "the connections opened are counted")
        #expect(output.stdout.contains("iterations  80 in"), "\(output.stdout)")
        #expect(output.stdout.contains("open model, 40/s for 2s"), "\(output.stdout)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("Latency over time") && html.contains("<svg"), "the page has its charts")
    }

    /// Sharing one cookie jar is what `--share-cookies` asks: a session from one iteration serves the next,
    /// and the closed model runs exactly `--iterations`.
    @Test(ExternalServers.needed(.nginx))
    func theClosedModelRunsTheIterationsAskedForAndCookiesAreSharedOnlyWhenAsked() async throws {
        let nginx = try await Nginx.shared()
        let onlyMe = """
            reqplan: 1
            steps:
              me:
                request: { url: "\(nginx.plainURL)/me" }
                expect: { status: 200 }
            """
        let (own, ownPath) = try await load(onlyMe, ["--users", "3", "--iterations", "30"])
        #expect(own.status == 0, "no slo: failures are figures, not the exit status")
        let ownReport = try Self.report(ownPath)
        #expect(Self.runs(ownReport["iteration"]) == (30, 30), "every iteration starts without a session")
        #expect(own.stdout.contains("`me` ×30: expectation:"), "\(own.stdout)")

        let sessions = Self.sessionPlan(base: nginx.plainURL)
        let (shared, sharedPath) = try await load(sessions, ["--users", "2", "--iterations", "10", "--share-cookies"])
        #expect(shared.status == 0, "\(shared.stdout)\(shared.stderr)")
        #expect(Self.runs(try Self.report(sharedPath)["iteration"]) == (10, 0))
        #expect(shared.stdout.contains("closed model, 2 users, at most 10 iterations"), "\(shared.stdout)")

        // From one event loop (`--threads 1`, as wrk's -t1), the same iterations, each with its own session.
        let (oneLoop, oneLoopPath) = try await load(sessions, ["--users", "4", "--iterations", "20", "--threads", "1"])
        #expect(oneLoop.status == 0, "\(oneLoop.stdout)\(oneLoop.stderr)")
        #expect(Self.runs(try Self.report(oneLoopPath)["iteration"]) == (20, 0))
        #expect(oneLoop.stdout.contains("4 users, at most 20 iterations, 1 thread"), "\(oneLoop.stdout)")
    }

    /// A plan of one request is built once for every iteration (`Executor.buildLone`), and each user of the closed
    /// model sends it again and again on a connection of its own (`RequestRepeater`). Each iteration still ends
    /// as `run` ends it: a redirect followed with the cookie its own hop set (handed back to the transport with
    /// the response that came, never sent twice: nginx's `/login-and-go` answers every call), a refused
    /// connection and a timeout worded alike, and a failure judged on the body hiding what the build learnt (a
    /// password of `auth`, which each iteration's own secrets store starts from). Four users on two event loops
    /// and 200 iterations: a user's connection is often on another loop than its task.
    @Test(ExternalServers.needed(.nginx))
    func aPlanOfOneRequestIsBuiltOnceAndEveryIterationEndsAsARunDoes() async throws {
        let nginx = try await Nginx.shared()
        let redirected = """
            reqplan: 1
            steps:
              go:
                request: { url: "\(nginx.plainURL)/login-and-go" }
                expect: { status: 200, body: { user: alice } }
            """
        let (followed, followedPath) = try await load(redirected, ["--users", "4", "--iterations", "200"])
        #expect(followed.status == 0, "\(followed.stdout)\(followed.stderr)")
        let report = try Self.report(followedPath)
        #expect(Self.runs(report["iteration"]) == (200, 0), "\(followed.stdout)")
        #expect(followed.stdout.contains("requests    200 "), "one request per iteration: \(followed.stdout)")
        let posted = """
            reqplan: 1
            steps:
              post: { request: { method: POST, url: "\(nginx.plainURL)/json", json: { n: 1 } }, expect: { status: 200 } }
            """
        let (sent, sentPath) = try await load(posted, ["--users", "3", "--iterations", "90"])
        #expect(Self.runs(try Self.report(sentPath)["iteration"]) == (90, 0), "\(sent.stdout)\(sent.stderr)")
        // The open model's lanes: the same iterations, started on a schedule.
        let (scheduled, scheduledPath) = try await load(redirected, ["--rate", "400/s", "--iterations", "100"])
        #expect(scheduled.status == 0, "\(scheduled.stdout)\(scheduled.stderr)")
        #expect(Self.runs(try Self.report(scheduledPath)["iteration"]) == (100, 0), "\(scheduled.stdout)")
        #expect(scheduled.stdout.contains("requests    100 "), "one request per iteration: \(scheduled.stdout)")
        let (scheduledPosts, postsPath) = try await load(posted, ["--rate", "400/s", "--iterations", "60"])
        #expect(Self.runs(try Self.report(postsPath)["iteration"]) == (60, 0), "\(scheduledPosts.stdout)")

        /// The reason `load` gives for every one of `count` iterations of `plan`, and `run`'s of one run.
        func reasons(_ plan: String, count: Int, model: [String] = ["--users", "2"]) async throws
            -> (load: String, run: String)
        {
            let (loaded, _) = try await load(plan, model + ["--iterations", "\(count)"])
            let line = loaded.stdout.split(separator: "\n").first { $0.contains("`get` ×\(count): ") }
            let ran = try CommandRunner.run(
                ["run", try CommandRunner.temporaryPlan(plan).path], environment: ["no_proxy": "*"])
            #expect(ran.status == 1, "\(ran.stdout)")
            return (line.map(String.init) ?? loaded.stdout, ran.stdout)
        }
        let refused = try await reasons(
            "reqplan: 1\nsteps:\n  get: { request: { url: \"http://127.0.0.1:1/x\" } }", count: 6)
        #expect(refused.load.hasSuffix("transport: connection to 127.0.0.1:1 refused"), "\(refused.load)")
        #expect(refused.run.contains("connection to 127.0.0.1:1 refused"), "\(refused.run)")
        let refusedOnSchedule = try await reasons(
            "reqplan: 1\nsteps:\n  get: { request: { url: \"http://127.0.0.1:1/x\" } }", count: 6,
            model: ["--rate", "100/s"])
        #expect(refusedOnSchedule.load == refused.load, "\(refusedOnSchedule.load)")
        if nginx.hasEcho {
            let slow = try await reasons(
                "reqplan: 1\nsteps:\n  get: { request: { url: \"\(nginx.plainURL)/delay/2\" }, timeout: 50ms }",
                count: 4)
            let message = "request to \(URL(string: nginx.plainURL)?.host ?? ""):"
            #expect(
                slow.load.contains("timeout: \(message)") && slow.load.hasSuffix("timed out after 50ms"), "\(slow.load)"
            )
            #expect(slow.run.contains("timed out after 50ms"), "\(slow.run)")
            // A redirect handed back by the repeater: its next hop gets what is left of the request's deadline,
            // so two hops of 150 ms miss a timeout of 250 ms, as in a run.
            let hops = try await reasons(
                "reqplan: 1\nsteps:\n  get: { request: { url: \"\(nginx.plainURL)/slow-redirect/0.15\" }, timeout: 250ms }",
                count: 2)
            #expect(hops.load.hasSuffix("timed out after 250ms"), "\(hops.load)")
            let hopsOnSchedule = try await reasons(
                "reqplan: 1\nsteps:\n  get: { request: { url: \"\(nginx.plainURL)/slow-redirect/0.15\" }, timeout: 250ms }",
                count: 2, model: ["--rate", "20/s"])
            #expect(hopsOnSchedule.load.hasSuffix("timed out after 250ms"), "\(hopsOnSchedule.load)")
            #expect(hops.run.contains("timed out after 250ms"), "\(hops.run)")
            // A status met but a time limit missed: judged as it comes, worded by the run's own checker (the time
            // taken differs from one iteration to the next).
            let plan =
                "reqplan: 1\nsteps:\n  get:\n    request: { url: \"\(nginx.plainURL)/delay/0.1\" }\n"
                + "    expect: { status: 200, max_duration: 10ms }"
            let (late, _) = try await load(plan, ["--users", "2", "--iterations", "4"])
            let said = "expectation: expected a response within 10ms, took "
            #expect(late.stdout.contains("4 failed") && late.stdout.contains("`get` ×"), "\(late.stdout)")
            #expect(late.stdout.contains(said), "\(late.stdout)")
            let ran = try CommandRunner.run(
                ["run", try CommandRunner.temporaryPlan(plan).path], environment: ["no_proxy": "*"])
            #expect(ran.stdout.contains(said.dropFirst("expectation: ".count)), "\(ran.stdout)")
        }

        let password = "pass-word-9876"
        let judged = """
            reqplan: 1
            steps:
              get:
                request:
                  url: "\(nginx.plainURL)/json"
                  auth: { basic: { username: ann, password: "\(password)" } }
                expect: { status: 200, body: { server: "\(password)" } }
            """
        let (failed, failedPath) = try await load(judged, ["--users", "2", "--iterations", "10"])
        #expect(Self.runs(try Self.report(failedPath)["iteration"]) == (10, 10))
        let reason = #"expected body `server` to equal "***", got "nginx""#
        #expect(failed.stdout.contains("`get` ×10: expectation: \(reason)"), "\(failed.stdout)")
        #expect(!failed.stdout.contains(password) && !failed.stderr.contains(password), "\(failed.stdout)")
        let run = try CommandRunner.run(
            ["run", try CommandRunner.temporaryPlan(judged).path], environment: ["no_proxy": "*"])
        #expect(run.status == 1 && run.stdout.contains(reason), "as `run` words it: \(run.stdout)")
    }

    /// Over TLS a plan of one request goes on HTTP/1.1 connections of the load's own, as over plain HTTP: every
    /// iteration is sent once and judged, in both models; a server that answers in HTTP/2 gets the iterations on the
    /// streams of one connection per event loop (two loops here), or of one when `--connections 1` says so; and a
    /// failure is worded as `reqplan run` words it, TLS diagnosis included (a TLS 1.3
    /// server that wants a client certificate resets the connection after the handshake).
    @Test(ExternalServers.needed(.nginx, .openssl))
    func overTLSIterationsAreSentOnceAndFailuresWordedAsARunWordsThem() async throws {
        let nginx = try await Nginx.shared()
        let certificates = nginx.certificates
        let trust = ["--cacert", certificates.ca.path]
        // nginx answers 400 without the client certificate.
        let client = ["--cert", certificates.client.certificate.path, "--key", certificates.client.key.path]
        let http1 = """
            reqplan: 1
            steps:
              get:
                request: { url: "\(nginx.mtlsURL)/" }
                expect: { status: 200 }
            """
        let http2 = """
            reqplan: 1
            steps:
              get: { request: { url: "\(nginx.tlsURL)/json" }, expect: { status: 200 } }
            """
        // Two event loops whatever the machine's cores, so the users of the closed model run on both.
        let twoLoops = ["NIO_SINGLETON_GROUP_LOOP_COUNT": "2"]
        let shapes = [
            (http1, [String](), "3 connections opened"), (http2, [], "2 connections opened"),
            (http2, ["--connections", "1"], "1 connections opened"),
        ]
        for (plan, limit, connections) in shapes {
            for model in [["--users", "3"], ["--rate", "300/s"]] {
                let (output, path) = try await load(
                    plan, model + ["--iterations", "90"] + limit + trust + client, environment: twoLoops)
                #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
                #expect(Self.runs(try Self.report(path)["iteration"]) == (90, 0), "\(output.stdout)")
                #expect(output.stdout.contains("requests    90 "), "one request per iteration: \(output.stdout)")
                if model[0] == "--users" {
                    #expect(output.stdout.contains(connections), "\(limit) \(output.stdout)")
                }
            }
        }

        let strict = try await HandshakeClientCertificateServer.start()
        defer { strict.stop() }
        let refused = "reqplan: 1\nsteps:\n  get: { request: { url: \"\(strict.url)/\" } }"
        let (loaded, _) = try await load(refused, ["--users", "1", "--iterations", "2"] + trust)
        let reason = "127.0.0.1:\(strict.port) wants a TLS client certificate, and none was given"
        #expect(loaded.status == 0, "with no `slo:`, failures are figures")
        #expect(loaded.stdout.contains("`get` ×2: transport: ") && loaded.stdout.contains(reason), "\(loaded.stdout)")
        let ran = try await CommandRunner.run(
            ["run", try CommandRunner.temporaryPlan(refused).path] + trust, environment: ["no_proxy": "*"],
            within: .seconds(120))
        #expect(ran.status == 1 && ran.stdout.contains(reason), "as `run` words it: \(ran.stdout)")
    }

    /// Three shards of a load, run side by side, merge into one result of the whole: counts add up, and the
    /// merge refuses a missing shard.
    @Test(ExternalServers.needed(.nginx))
    func theShardsOfALoadMergeIntoTheWhole() async throws {
        let nginx = try await Nginx.shared()
        // One file: the shards of a load run the same plan (the merge checks it).
        let plan = try CommandRunner.temporaryPlan(Self.sessionPlan(base: nginx.plainURL))
        let shards = try await withThrowingTaskGroup(of: URL.self) { group in
            for index in 1...3 {
                group.addTask {
                    let (output, path) = try await self.load(
                        file: plan, ["--rate", "30/s", "--duration", "2s", "--shard", "\(index)/3"])
                    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
                    return path
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let merged = shards[0].deletingLastPathComponent().appendingPathComponent("merged-\(UUID().uuidString).json")
        let output = try await CommandRunner.run(
            ["report", "merge"] + shards.map(\.path) + ["--report", "json:\(merged.path)"], within: .seconds(60))
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        let report = try Self.report(merged)
        #expect(Self.runs(report["iteration"]) == (60, 0), "10/s for 2 s in each of 3 shards")
        #expect(report["shards"] as? Int == 3)
        #expect(output.stdout.contains("30/s for 2s, 3 shards merged"), "\(output.stdout)")

        let missing = try await CommandRunner.run(
            ["report", "merge", shards[0].path, shards[1].path], within: .seconds(60))
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("error[RP0711]") && missing.stderr.contains("missing"), "\(missing.stderr)")

        // A run's report among them: named as what it is, not "not a load's report" or "not a reqplan report".
        let run = shards[0].deletingLastPathComponent().appendingPathComponent("run-\(UUID().uuidString).json")
        let ran = try CommandRunner.run(
            ["run", plan.path, "--report", "json:\(run.path)"],
            environment: ["no_proxy": "*"])
        #expect(FileManager.default.fileExists(atPath: run.path), "\(ran.stdout)\(ran.stderr)")
        for files in [[shards[0].path, run.path], [run.path, shards[0].path]] {
            let mixed = try await CommandRunner.run(["report", "merge"] + files, within: .seconds(60))
            #expect(mixed.status == 2)
            #expect(
                mixed.stderr.contains(
                    "error[RP0711]: `\(shards[0].path)` is the report of a load and `\(run.path)` is not"),
                "\(mixed.stderr)")
        }
    }

    /// The OpenMetrics report is read by prometheus-client's own OpenMetrics parser, with the figures of the JSON
    /// report.
    @Test(ExternalServers.needed(.nginx, .prometheusClient))
    func theOpenMetricsReportReadsBackInPrometheusClient() async throws {
        let nginx = try await Nginx.shared()
        let folder = try ExternalServers.makeTemporaryFolder("openmetrics")
        let metrics = folder.appendingPathComponent("load.om")
        let (output, _) = try await load(
            Self.sessionPlan(base: nginx.plainURL),
            ["--users", "2", "--iterations", "12", "--report", "openmetrics:\(metrics.path)"])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        let script = """
            import sys
            from prometheus_client.openmetrics.parser import text_string_to_metric_families
            text = open(sys.argv[1]).read()
            for family in text_string_to_metric_families(text):
                for sample in family.samples:
                    labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
                    print(f"{family.type} {sample.name} {labels} {sample.value}")
            """
        let parsed = try runCommand("python3", ["-c", script, metrics.path])
        #expect(parsed.status == 0, "\(parsed.output)")
        #expect(
            parsed.output.contains("counter reqplan_load_runs_total outcome=succeeded,step=me,subject=step 12"),
            "\(parsed.output)")
        #expect(
            parsed.output.contains("summary reqplan_load_latency_seconds_count subject=iteration 12"),
            "\(parsed.output)")
        #expect(parsed.output.contains("counter reqplan_load_iterations_total state=started 12"), "\(parsed.output)")
    }

    /// `--push` puts the figures to a real Pushgateway: its `/metrics` then has the load's series, grouped
    /// under job `reqplan`, the plan and the shard, with the values of the JSON report, and no input's value
    /// (a secret's least of all) in any label.
    @Test(ExternalServers.needed(.nginx, .pushgateway, .curl, .tinyproxy))
    func theFiguresArePushedToAPushgateway() async throws {
        let nginx = try await Nginx.shared()
        let gateway = try await Pushgateway.start()
        defer { gateway.stop() }
        let plan = """
            reqplan: 1
            inputs:
              token: { type: string, secret: true }
              who: { type: string }
            steps:
              me:
                request: { url: "\(nginx.plainURL)/json", headers: { X-Token: "${{ inputs.token }}", X-Who: "${{ inputs.who }}" } }
                expect: { status: 200 }
            slo:
              - step: me
                p99: 5s
            """
        let file = try CommandRunner.temporaryPlan(plan)
        func shard(_ index: Int) async throws -> (CommandRunner.Output, URL) {
            try await load(
                file: file,
                [
                    "--users", "2", "--iterations", "12", "--shard", "\(index)/2", "--push", gateway.url + "/",
                    "--input", "token=k3y9", "--input", "who=visible-input-value",
                ])
        }
        let (output, path) = try await shard(1)
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(output.stderr.contains("pushed the figures to \(gateway.url)/metrics/job/reqplan/plan@base64/"))
        let report = try Self.report(path)
        let started = try #require(report["started"] as? Int)
        #expect(started == 6, "half of 12")
        let metrics = try runCommand("curl", ["-sS", "--max-time", "10", gateway.url + "/metrics"])
        #expect(metrics.status == 0, "\(metrics.output)")
        let planPath = try #require(report["plan"] as? String)
        let group = "job=\"reqplan\",outcome=\"succeeded\",plan=\"\(planPath)\",shard=\"1-of-2\""
        #expect(
            metrics.output.contains("reqplan_load_runs_total{instance=\"\",\(group),step=\"me\",subject=\"step\"} 6"),
            "\(metrics.output)")
        #expect(
            metrics.output.contains(
                "reqplan_load_iterations_total{instance=\"\",job=\"reqplan\",plan=\"\(planPath)\",shard=\"1-of-2\","
                    + "state=\"started\"} 6"), "\(metrics.output)")
        #expect(metrics.output.contains("# TYPE reqplan_load_latency_seconds summary"), "\(metrics.output)")
        #expect(
            metrics.output.contains(
                "reqplan_load_objective_met{instance=\"\",job=\"reqplan\",limit=\"p99 <= 5s\",plan=\"\(planPath)\","
                    + "shard=\"1-of-2\",step=\"me\",subject=\"step\"} 1"), "\(metrics.output)")
        #expect(!metrics.output.contains("k3y9") && !metrics.output.contains("visible-input-value"))

        // The other shard, then the merge of both: the whole load pushed as the plan's group, without `shard`,
        // through a forward proxy (`--proxy`, as a CI runner behind one would).
        let (other, otherPath) = try await shard(2)
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        let merged = try await CommandRunner.run(
            [
                "report", "merge", path.path, otherPath.path, "--push", gateway.url, "--push-timeout", "10s",
                "--proxy", proxy.url,
            ],
            environment: ["NO_PROXY": "", "no_proxy": ""], within: .seconds(60))
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(
            proxy.requests.contains { $0.hasPrefix("PUT \(gateway.url)/metrics/job/reqplan/plan@base64/") },
            "\(proxy.requests)")
        // Without `--push`, the connection options have nothing to apply to: refused.
        let idle = try await CommandRunner.run(
            ["report", "merge", path.path, otherPath.path, "--proxy", proxy.url], within: .seconds(60))
        #expect(idle.status == 64 && idle.stderr.contains("for --push"), "\(idle.stderr)")
        let after = try runCommand("curl", ["-sS", "--max-time", "10", gateway.url + "/metrics"])
        #expect(
            after.output.contains(
                "reqplan_load_iterations_total{instance=\"\",job=\"reqplan\",plan=\"\(planPath)\",state=\"started\"} 12"
            ),
            "\(after.output)")
        #expect(after.output.contains("shard=\"2-of-2\""), "each shard keeps its own group")
    }

    /// A gateway that refuses connections, answers an error or never answers fails the push with exit 74 and
    /// its reason, quickly (`--push-timeout`); the summary and the reports are written all the same. Ctrl-C
    /// during a push ends it.
    @Test(ExternalServers.needed(.nginx, .pushgateway))
    func aFailedPushIsExit74WithItsReason() async throws {
        let nginx = try await Nginx.shared()
        let gateway = try await Pushgateway.start()
        defer { gateway.stop() }
        let silent = try SilentPort(connecting: true)
        defer { silent.close() }
        let plan = """
            reqplan: 1
            steps:
              json:
                request: { url: "\(nginx.plainURL)/json" }
            """
        let cases: [(url: String, says: String)] = [
            ("http://user:pa55w0rd@127.0.0.1:1", "cannot push the figures to http://127.0.0.1:1/metrics/job/reqplan"),
            (gateway.url + "/no/such/prefix", "refused the figures: status 404"),
            ("http://127.0.0.1:\(silent.port)", "no answer within 1s"),
        ]
        for (url, says) in cases {
            let started = ContinuousClock.now
            let (output, path) = try await load(
                plan, ["--users", "1", "--iterations", "2", "--push", url, "--push-timeout", "1s"])
            #expect(ContinuousClock.now - started < .seconds(30), "\(url)")
            #expect(output.status == 74, "\(url): \(output.stdout)\(output.stderr)")
            #expect(output.stderr.contains(says), "\(url): \(output.stderr)")
            #expect(!output.stderr.contains("pa55w0rd"), "credentials are never shown")
            #expect(output.stdout.contains("iterations  2 in"), "the summary is written: \(output.stdout)")
            #expect(FileManager.default.fileExists(atPath: path.path), "the reports are written")
        }

        // Ctrl-C during the push to a gateway that never answers ends it at once, not at --push-timeout.
        let running = try CommandRunner.start(
            [
                "load", try CommandRunner.temporaryPlan(plan).path, "--users", "1", "--duration", "2s", "--progress",
                "lines", "--push", "http://127.0.0.1:\(silent.port)", "--push-timeout", "10m",
            ], environment: ["no_proxy": "*"])
        #expect(await running.waitForStandardError(containing: "in flight", within: .seconds(60)), "the load went")
        // The load ends at 2 s, and its figures go out at once; the signal comes while the gateway holds them.
        try await Task.sleep(for: .seconds(5))
        let signalled = ContinuousClock.now
        kill(running.pid, SIGINT)
        let interrupted = await running.finish(within: .seconds(60))
        #expect(ContinuousClock.now - signalled < .seconds(10), "the signal, not --push-timeout, ended the push")
        #expect(interrupted.status == 130, "\(interrupted.stdout)\(interrupted.stderr)")
        #expect(interrupted.stderr.contains("the push was interrupted"), "\(interrupted.stderr)")
        #expect(interrupted.stdout.contains("iterations "), "the summary is written: \(interrupted.stdout)")
    }

    /// A plan of three journeys: `browse`, and `checkout` (a sequence that needs `login` and reads `vars.who`,
    /// which reads `profile`), and `admin`; outputs and `slo:` items of each.
    static func journeysPlan(base: String) -> String {
        """
        reqplan: 1
        defaults:
          base_url: "\(base)"
        vars:
          who: ${{ steps.profile.status }}
        steps:
          login:
            request: { method: POST, url: /login }
          profile:
            request: { url: /json }
          browse:
            group:
              list: { request: { url: /json } }
              item: { request: { url: /json } }
          checkout:
            needs: [login]
            sequence:
              cart: { request: { url: /me, headers: { X-Who: "${{ vars.who }}" } }, expect: { status: 200 } }
              pay: { request: { url: /json } }
              receipt: { request: { url: /json } }
          admin:
            group:
              users: { request: { url: /json } }
        outputs:
          paid: ${{ steps.pay.status }}
          listed: ${{ steps.list.status }}
          asked: ${{ vars.who }}
        slo:
          - step: pay
            p99: 5s
          - step: admin
            p99: 5s
          - p99: 5s
        """
    }

    /// `--scenario` runs the step and what it transitively needs, nothing else: in `load` (the report has only
    /// those steps, the `slo:` of a step left out is dropped with a note) and in `run` (the same steps, the
    /// outputs that read steps left out omitted); a member of a sequence takes the members before it.
    @Test(ExternalServers.needed(.nginx))
    func aScenarioRunsTheStepAndWhatItNeedsOnly() async throws {
        let nginx = try await Nginx.shared()
        let plan = try CommandRunner.temporaryPlan(Self.journeysPlan(base: nginx.plainURL))
        let (loaded, path) = try await load(
            file: plan, ["--scenario", "checkout", "--users", "1", "--iterations", "4"])
        #expect(loaded.status == 0, "\(loaded.stdout)\(loaded.stderr)")
        let report = try Self.report(path)
        let ids = Set((report["steps"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        #expect(ids == ["login", "profile", "checkout", "cart", "pay", "receipt"], "\(ids)")
        #expect(Self.runs(report["iteration"]) == (4, 0), "the session of `login` reaches `cart`: \(loaded.stdout)")
        #expect(
            loaded.stderr.contains("note: --scenario checkout: the `slo:` limits of step `admin`"), "\(loaded.stderr)")
        #expect(loaded.stdout.contains("p99 of step `pay`") && !loaded.stdout.contains("step `admin`"))
        #expect(loaded.stdout.contains("scenario checkout"), "the summary names it: \(loaded.stdout)")
        #expect(loaded.stdout.contains("closed model, 1 user, at most 4 iterations"), "\(loaded.stdout)")
        #expect(report["scenario"] as? String == "checkout")
        // The merge checks the scenario's `slo:`: `admin`'s limit, of a step it did not run, is not missed.
        let merged = try await CommandRunner.run(["report", "merge", path.path], within: .seconds(60))
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(merged.stderr.contains("the `slo:` limits of step `admin`"), "\(merged.stderr)")

        let ran = try await CommandRunner.run(
            ["run", plan.path, "--scenario", "pay", "--output", "json", "--progress", "none"],
            environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
        let outputs = try #require(
            try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran.stdout)")
        #expect(Set(outputs.keys) == ["paid", "asked"], "`listed` reads `list`, left out: \(outputs)")
        #expect(ran.stderr.contains("output `listed` reads steps it does not run"), "\(ran.stderr)")
        #expect(!nginx.accessLog.isEmpty)
    }

    /// An id that names no step is RP0213 with a did-you-mean, exit 2 and nothing sent; one that is a
    /// sub-plan's step, or is weird, is refused the same way, shown safely; an empty one is a usage error.
    @Test(arguments: [
        ("chekout", "did you mean `checkout`?"),
        ("no such step \u{1B}]0;owned\u{7}", "^[]0;owned^G"),
        ("checkout/cart", "RP0213"),
    ])
    func anUnknownScenarioIsLocatedWithADidYouMean(_ id: String, _ says: String) async throws {
        let plan = try CommandRunner.temporaryPlan(Self.journeysPlan(base: "http://127.0.0.1:1"))
        for command in ["run", "load"] {
            let extra = command == "load" ? ["--users", "1", "--iterations", "1"] : []
            let output = try await CommandRunner.run(
                [command, plan.path, "--scenario", id] + extra, within: .seconds(30))
            #expect(output.status == 2, "\(command): \(output.stdout)\(output.stderr)")
            #expect(output.stderr.contains("error[RP0213]"), "\(command): \(output.stderr)")
            #expect(output.stderr.contains(says), "\(command): \(output.stderr)")
            #expect(!output.stderr.contains("\u{1B}]0;"), "no escape sequence reaches the terminal")
        }
        let empty = try await CommandRunner.run(["run", plan.path, "--scenario", ""], within: .seconds(30))
        #expect(empty.status == 64 && empty.stderr.contains("--scenario"), "\(empty.stderr)")
    }

    /// An input that only steps the scenario leaves out read needs no value: `required`, and unset, it stops
    /// neither `run` nor `load` of a scenario without them; a scenario that reads it still asks for it.
    @Test func anInputOnlyALeftOutStepReadsIsNotAskedFor() async throws {
        let plan = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            inputs:
              admin_token: { type: string, secret: true, required: true }
              user: { type: string }
            defaults: { base_url: "http://127.0.0.1:1" }
            steps:
              login: { request: { method: POST, url: "/login?u=${{ inputs.user }}" } }
              admin: { request: { url: /admin, auth: { bearer: "${{ inputs.admin_token }}" } } }
            """)
        for command in ["run", "load"] {
            let extra = command == "load" ? ["--users", "1", "--iterations", "1"] : []
            let login = try await CommandRunner.run(
                [command, plan.path, "--scenario", "login", "--input", "user=ann", "--progress", "none"] + extra,
                within: .seconds(60))
            // The request fails (nothing listens): `run` exits 1, `load` (with no `slo:`) 0; no input is missing.
            #expect(login.status == (command == "run" ? 1 : 0), "\(command): \(login.stderr)")
            #expect(!login.stderr.contains("admin_token"), "\(command): \(login.stderr)")
            let admin = try await CommandRunner.run(
                [command, plan.path, "--scenario", "admin", "--progress", "none"] + extra, within: .seconds(60))
            #expect(admin.status == 2, "\(command): \(admin.stderr)")
            #expect(admin.stderr.contains("input `admin_token` has no value"), "\(command): \(admin.stderr)")
            #expect(!admin.stderr.contains("input `user`"), "\(command): `user` is read by `login` only")
        }
    }

    /// `--workflow` selects one workflow of an Arazzo document for a load as for a run.
    @Test(ExternalServers.needed(.connexion))
    func aLoadRunsOneWorkflowOfAnArazzoDocument() async throws {
        let mock = try await ConnexionMock.start(serving: ArazzoRunTests.petCouponsDescription)
        defer { mock.stop() }
        // The report goes to a folder of its own: the document is in the package's fixtures.
        let path = try ExternalServers.makeTemporaryFolder("load-arazzo").appendingPathComponent("load.json")
        let output = try await CommandRunner.run(
            [
                "load", ArazzoRunTests.petCoupons.path, "--workflow", "apply-coupon", "--server",
                "pet-coupons=\(mock.url)", "--input", "my_pet_tags=dog", "--no-response-schema-check", "--users", "1",
                "--iterations", "3", "--progress", "none", "--report", "json:\(path.path)",
            ], environment: ["no_proxy": "*"], within: .seconds(120))
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        let report = try Self.report(path)
        #expect(Self.runs(report["iteration"]) == (3, 0), "\(output.stdout)")
        let ids = (report["steps"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.contains("find-pet") && ids.contains("find-coupons"), "\(ids)")
        #expect(!ids.contains { $0.contains("buy-available-pet") }, "the other workflow does not run: \(ids)")
    }

    /// A step the repeater hands on to the whole executor (a body to check, a failure) is timed from when its
    /// request went out, as a step the repeater judges itself is: its latency holds the server's part. It was once
    /// timed from the hand-off, and a step that waited 100 ms for nginx showed 0.1 ms beside its iteration's 100.
    @Test(ExternalServers.needed(.nginx))
    func aStepHandedOnIsTimedFromItsRequest() async throws {
        let nginx = try await Nginx.shared()
        try #require(nginx.hasEcho, "the echo module serves /delay")
        let plans = [
            // A body to check: every response goes on to the executor.
            "reqplan: 1\nsteps:\n  get:\n    request: { url: \"\(nginx.plainURL)/delay/0.1\" }\n"
                + "    expect: { status: 200, body: { ok: true } }",
            // A failure: the timeout ends the exchange after 100 ms.
            "reqplan: 1\nsteps:\n  get: { request: { url: \"\(nginx.plainURL)/delay/2\" }, timeout: 100ms }",
        ]
        for plan in plans {
            for model in [["--users", "2", "--iterations", "4"], ["--rate", "20/s", "--duration", "200ms"]] {
                let (output, path) = try await load(plan, model)
                let report = try Self.report(path)
                let step = try #require(Self.step(report, "get") as? [String: Any], "\(output.stdout)")
                let latency = try #require(step["latency"] as? [String: Any])
                let iteration = try #require((report["iteration"] as? [String: Any])?["latency"] as? [String: Any])
                // In microseconds; the histogram's lowest value of a bucket, within 0.1 %.
                #expect((latency["min"] as? Int ?? 0) >= 95_000, "\(model): \(output.stdout)")
                #expect((iteration["min"] as? Int ?? 0) >= 95_000, "\(model): \(output.stdout)")
            }
        }
    }

    /// A server that never answers cannot hold a load: the grace after the end cancels the iterations still
    /// running (counted interrupted), and Ctrl-C ends it at once, each with the summary.
    @Test(ExternalServers.needed(.nginx))
    func aHangingServerCannotHoldTheLoad() async throws {
        let nginx = try await Nginx.shared()
        try #require(nginx.hasEcho, "the echo module serves /delay")
        let slow = """
            reqplan: 1
            steps:
              wait:
                request: { url: "\(nginx.plainURL)/delay/30" }
            """
        let started = ContinuousClock.now
        let (graced, path) = try await load(slow, ["--rate", "5/s", "--duration", "1s", "--grace", "1s"])
        #expect(ContinuousClock.now - started < .seconds(20), "the grace, not the 30 s delay, ended it")
        #expect(graced.status == 0, "\(graced.stdout)\(graced.stderr)")
        #expect(graced.stdout.contains("were cancelled"), "\(graced.stdout)")
        #expect(try Self.report(path)["interrupted"] as? Int == 5)
        // With the cap on iterations in flight reached, waiting for a slot ends with the schedule too.
        let capped = ContinuousClock.now
        let (held, heldPath) = try await load(
            slow, ["--rate", "10/s", "--duration", "1s", "--grace", "1s", "--max-in-flight", "2"])
        #expect(ContinuousClock.now - capped < .seconds(20), "the schedule's end, not the 30 s delay, ended it")
        #expect(held.stdout.contains("were cancelled"), "\(held.stdout)")
        let heldReport = try Self.report(heldPath)
        #expect(heldReport["interrupted"] as? Int == 2 && heldReport["dropped"] as? Int == 8, "\(held.stdout)")

        let file = try CommandRunner.temporaryPlan(slow)
        let running = try CommandRunner.start(
            ["load", file.path, "--users", "4", "--duration", "1m", "--progress", "lines"],
            environment: ["no_proxy": "*"])
        let going = await running.waitForStandardError(containing: "in flight 4", within: .seconds(60))
        #expect(going, "the live lines came")
        kill(running.pid, SIGINT)
        let interrupted = await running.finish(within: .seconds(30))
        #expect(
            !interrupted.killedAfterTimeout && interrupted.status == 130, "\(interrupted.stdout)\(interrupted.stderr)")
        #expect(interrupted.stdout.contains("stopped: interrupted"), "\(interrupted.stdout)")
    }

    /// A missed `slo:` limit is RP0519 located at the limit, and exit 1; `--abort-on-fail` stops the load at the
    /// first second that misses it, long before its end.
    @Test(ExternalServers.needed(.nginx))
    func aMissedObjectiveFailsTheLoadAndCanAbortIt() async throws {
        let nginx = try await Nginx.shared()
        let plan = """
            reqplan: 1
            steps:
              me:
                request: { url: "\(nginx.plainURL)/me" }
                expect: { status: 200 }
              json:
                request: { url: "\(nginx.plainURL)/json" }
            slo:
              - step: json
                p99: 5s
              - step: me
                error_rate: "< 1%"
            """
        let (missed, _) = try await load(plan, ["--users", "2", "--iterations", "20"])
        #expect(missed.status == 1, "\(missed.stdout)\(missed.stderr)")
        #expect(missed.stdout.contains("✓ p99 of step `json`"), "\(missed.stdout)")
        #expect(missed.stdout.contains("✗ error_rate of step `me`: 100% (limit < 1%)"), "\(missed.stdout)")
        #expect(missed.stderr.contains("error[RP0519]: load objective missed"), "\(missed.stderr)")
        #expect(missed.stderr.contains(":12:5"), "located at `error_rate`: \(missed.stderr)")

        let started = ContinuousClock.now
        let (aborted, _) = try await load(plan, ["--rate", "20/s", "--duration", "1m", "--abort-on-fail"])
        #expect(ContinuousClock.now - started < .seconds(30), "aborted long before the minute")
        #expect(aborted.status == 1, "\(aborted.stdout)\(aborted.stderr)")
        #expect(aborted.stdout.contains("stopped: aborted: error_rate of step `me`"), "\(aborted.stdout)")
    }

    /// `--data`: each iteration takes a row of a CSV file; `--data-reuse once` ends the load when every row ran,
    /// and a row whose value does not fit its input stops the load before anything is sent, located in the file.
    @Test(ExternalServers.needed(.nginx))
    func iterationsTakeTheRowsOfADataFile() async throws {
        let nginx = try await Nginx.shared()
        let plan = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            inputs:
              user: { type: string }
              n: { type: number }
            steps:
              get:
                request: { url: "\(nginx.plainURL)/json", query: { user: "${{ inputs.user }}", n: "${{ inputs.n }}" } }
                expect: { status: 200 }
            """)
        let folder = plan.deletingLastPathComponent()
        let rows = folder.appendingPathComponent("rows.csv")
        try "user,n\nalice,1\nbob,2\n\"carol, jr\",3\n".write(to: rows, atomically: true, encoding: .utf8)
        let (once, path) = try await load(
            file: plan, ["--data", rows.path, "--data-reuse", "once", "--users", "2", "--duration", "30s"])
        #expect(once.status == 0, "\(once.stdout)\(once.stderr)")
        #expect(Self.runs(try Self.report(path)["iteration"]) == (3, 0))
        #expect(once.stdout.contains("stopped: the data ran out\n"), "\(once.stdout)")
        #expect(once.stdout.contains("iterations  3 in"), "\(once.stdout)")

        let bad = folder.appendingPathComponent("bad.csv")
        try "user,n\nalice,1\nbob,two\n".write(to: bad, atomically: true, encoding: .utf8)
        let (refused, _) = try await load(file: plan, ["--data", bad.path, "--rate", "5/s", "--duration", "1s"])
        #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("error[RP0501]") && refused.stderr.contains("bad.csv:3:5"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("iterations"), "nothing ran")
    }

    /// Settings that cannot be met, or whose numbers are hostile, are usage errors (64) naming the option;
    /// nothing is sent.
    @Test(arguments: [
        (["--rate", "1e300/s", "--duration", "1s"], "--rate"),
        (["--rate", "nan/s", "--duration", "1s"], "--rate"),
        (["--rate", "0/s", "--duration", "1s"], "--rate"),
        (["--users", "-1", "--duration", "1s"], "--users"),
        (["--users", "100001", "--duration", "1s"], "--users"),
        (["--users", "2"], "an end"),
        (["--rate", "5/s", "--users", "2", "--duration", "1s"], "not both"),
        (["--stage", "0s:5/s"], "--stage"),
        (["--rate", "5/s", "--duration", "99999999999h"], "--duration"),
        (["--rate", "5/s", "--duration", "1s", "--warm-up", "1s"], "--warm-up"),
        (["--rate", "5/s", "--duration", "1s", "--think", "1s"], "--think"),
        (["--rate", "5/s", "--iterations", "0"], "--iterations"),
        (["--rate", "5/s", "--iterations", "18446744073709551616"], "--iterations"),
        (["--rate", "5/s", "--duration", "1s", "--max-in-flight", "0"], "--max-in-flight"),
        (["--rate", "5/s", "--duration", "1s", "--shard", "4/3"], "--shard"),
        (["--users", "2", "--duration", "1s", "--threads", "0"], "--threads"),
        (["--users", "2", "--duration", "1s", "--threads", "100000"], "--threads"),
        (["--users", "2", "--duration", "1s", "--threads", "1", "--http-client", "asynchttpclient"], "--threads"),
        (["--rate", "5/s", "--duration", "1s", "--report", "junit:x.xml"], "--report"),
        (["--rate", "5/s", "--duration", "1s", "--data-order", "random"], "--data"),
        (["--rate", "5/s", "--duration", "1s", "--data", "d.csv", "--data-seed", "7"], "--data-seed"),
        (["--rate", "5/s", "--duration", "1s", "--push", "ftp://gateway:9091"], "--push"),
        (["--rate", "5/s", "--duration", "1s", "--push", ""], "--push"),
        (["--rate", "5/s", "--duration", "1s", "--push", "http://gateway:9091/?job=x"], "--push"),
        (
            ["--rate", "5/s", "--duration", "1s", "--push", "http://gw/" + String(repeating: "a", count: 5000)],
            "--push"
        ),
        (["--rate", "5/s", "--duration", "1s", "--push", "http://gw\u{1B}]0;x\u{7}:9091"], "--push"),
        (["--rate", "5/s", "--duration", "1s", "--push-timeout", "5s"], "--push-timeout"),
        (["--rate", "5/s", "--duration", "1s", "--push", "http://gw:9091", "--push-timeout", "0s"], "--push-timeout"),
        (
            ["--rate", "5/s", "--duration", "1s", "--push", "http://gw:9091", "--push-timeout", "99999999999h"],
            "--push-timeout"
        ),
    ])
    func hostileSettingsAreUsageErrors(_ arguments: [String], _ named: String) async throws {
        let file = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            steps:
              a:
                request: { url: "http://127.0.0.1:1/" }
            """)
        let output = try await CommandRunner.run(["load", file.path] + arguments, within: .seconds(30))
        #expect(output.status == 64, "\(arguments): \(output.stdout)\(output.stderr)")
        #expect(output.stderr.contains(named), "\(arguments): \(output.stderr)")
        #expect(!output.stdout.contains("iterations"), "nothing ran")
    }
}
