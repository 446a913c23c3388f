import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// The rule of docs/import.md, "Data flow: found, not copied": which response values are sources, where a
/// request reads them, and what is never linked.
@Suite struct DataFlowFinderTests {
    /// One exchange of a HAR: the request, and the response's headers and JSON body.
    struct Exchange {
        var method = "GET"
        var url: String
        var headers: [(String, String)] = []
        var body: String?
        var responseHeaders: [(String, String)] = []
        var response = "{}"
    }

    private func plan(_ exchanges: [Exchange]) throws -> String {
        func headers(_ pairs: [(String, String)]) -> Value {
            .list(pairs.map { .object([.init("name", .string($0.0)), .init("value", .string($0.1))]) })
        }
        let entries = exchanges.map { exchange in
            var request: [Value.Field] = [
                .init("method", .string(exchange.method)), .init("url", .string(exchange.url)),
                .init("headers", headers(exchange.headers)),
            ]
            if let body = exchange.body {
                request.append(
                    .init(
                        "postData",
                        .object([.init("mimeType", .string("application/json")), .init("text", .string(body))])
                    ))
            }
            let content = Value.object([
                .init("mimeType", .string("application/json")), .init("text", .string(exchange.response)),
            ])
            return Value.object([
                .init("request", .object(request)),
                .init(
                    "response",
                    .object([
                        .init("status", .int(200)), .init("headers", headers(exchange.responseHeaders)),
                        .init("content", content),
                    ])),
            ])
        }
        let har = Value.object([.init("log", .object([.init("entries", .list(entries))]))]).jsonText()
        let result = Importer.importPlan(.har, from: [SourceFile(path: "session.har", text: har)])
        let text = try #require(result.text)
        let report = PlanValidator.validate(SourceFile(path: "plan.yaml", text: text))
        #expect(report.isValid(strict: true), "\(text)")
        return text
    }

    @Test func anIdInAPathSegmentAndAJSONNumberReadTheResponseThatGaveThem() throws {
        let text = try plan([
            Exchange(
                method: "POST", url: "https://h.example/items", body: "{\"name\": \"a\"}", response: "{\"id\": 7}"),
            Exchange(url: "https://h.example/items/7"),
            Exchange(method: "POST", url: "https://h.example/links", body: "{\"item\": 7, \"label\": \"x\"}"),
        ])
        #expect(text.contains("url: \"/items/${{ steps.post_items.body.id }}\""))
        #expect(text.contains("item: \"${{ steps.post_items.body.id }}\""))
        #expect(text.contains("# data flow: a segment of the URL's path is `steps.post_items.body.id`"))
    }

    @Test func aTokenAfterBearerANestedFieldAndAQueryValueAreLinked() throws {
        let text = try plan([
            Exchange(
                method: "POST", url: "https://h.example/login", body: "{\"user\": \"ada\"}",
                response: "{\"auth\": {\"access_token\": \"eyJ.abc.def\"}, \"tenant\": \"t-4471\"}"),
            Exchange(
                url: "https://h.example/reports?tenant=t-4471", headers: [("Authorization", "Bearer eyJ.abc.def")]),
        ])
        #expect(text.contains("bearer: \"${{ steps.post_login.body.auth.access_token }}\""))
        #expect(text.contains("tenant: \"${{ steps.post_login.body.tenant }}\""))
        #expect(!text.contains("eyJ.abc.def"))
    }

    @Test func trivialValuesAndValuesTheClientSentFirstAreNotLinked() throws {
        let text = try plan([
            Exchange(
                method: "POST", url: "https://h.example/login", body: "{\"user\": \"ada-lovelace\"}",
                response: "{\"user\": \"ada-lovelace\", \"ok\": true, \"count\": 5, \"role\": \"admin\"}"),
            Exchange(
                method: "POST", url: "https://h.example/audit",
                body: "{\"who\": \"ada-lovelace\", \"ok\": true, \"count\": 5, \"role\": \"admin\"}"),
        ])
        #expect(!text.contains("steps."), "\(text)")
        // With nothing to order them by, the second still waits for the first: the source ran them in order.
        #expect(text.contains("needs: post_login"))
    }

    @Test func aCookieTheServerSetIsLeftToTheJarAndAStepThatReadsAnotherNeedsNoMore() throws {
        let text = try plan([
            Exchange(
                method: "POST", url: "https://h.example/session", body: "{}",
                responseHeaders: [("Set-Cookie", "sid=s3cr3t-session-value; Path=/; HttpOnly")],
                response: "{\"csrf\": \"c-91f0a2\"}"),
            Exchange(
                method: "POST", url: "https://h.example/orders",
                headers: [("Cookie", "sid=s3cr3t-session-value; lang=en"), ("X-CSRF", "c-91f0a2")], body: "{}"),
        ])
        #expect(!text.contains("s3cr3t-session-value"))
        #expect(text.contains("Cookie: \"lang=en\"") || text.contains("Cookie: lang=en"), "\(text)")
        #expect(text.contains("X-CSRF: \"${{ steps.post_session.body.csrf }}\""))
        #expect(!text.contains("needs:"), "\(text)")
    }

    @Test func aCookieHeaderTheHARHidesIsLeftToTheJar() throws {
        let text = try plan([
            Exchange(method: "POST", url: "https://h.example/session", body: "{}"),
            Exchange(url: "https://h.example/home", headers: [("Cookie", "***")]),
        ])
        #expect(!text.contains("Cookie:") && text.contains("the run's cookie jar sends what the responses set"))
    }

    @Test func aLocationIsTheNextRequestsURL() throws {
        let text = try plan([
            Exchange(
                method: "POST", url: "https://h.example/jobs", body: "{}",
                responseHeaders: [("Location", "/jobs/j-20260101-0001")]),
            Exchange(url: "https://h.example/jobs/j-20260101-0001"),
        ])
        #expect(text.contains("url: \"${{ steps.post_jobs.headers.location }}\""))
    }

    @Test func anOddKeyIsReadWithBrackets() throws {
        let text = try plan([
            Exchange(method: "POST", url: "https://h.example/a", body: "{}", response: "{\"the id\": \"x-0001-abcd\"}"),
            Exchange(url: "https://h.example/b/x-0001-abcd"),
        ])
        #expect(text.contains("${{ steps.post_a.body['the id'] }}"))
    }
}
