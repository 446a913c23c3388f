import Foundation
import ReqPlanHTTP
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTestSupport
import ReqPlanTransport
import Testing

/// AWS Signature Version 4 against what nobody here wrote: the AWS test suite (`Tests/Fixtures/sigv4`, its
/// ORIGIN.md says where from), botocore's own signer (`scripts/sigv4-botocore.py`) and moto's server, which
/// recomputes every signature with botocore and refuses a wrong one.
@Suite struct AWSSigV4Tests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sigv4")
    static let scriptFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts")
    /// 2015-08-30T12:36:00Z, the test suite's date.
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)
    static let suiteCredentials = AWSSigV4.Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")

    // MARK: The AWS test suite

    /// A case of the suite: its request, and what signing it must give.
    struct SuiteCase: CustomTestStringConvertible, Sendable {
        var name: String
        var method: String
        var target: String
        var headers: [HeaderField]
        var body: [UInt8]
        var canonicalRequest: String
        var stringToSign: String
        var authorization: String
        var testDescription: String { name }
    }

    /// Every folder of the suite with a `.req`, read as botocore's test reads them: the request line's path
    /// raw, folded header lines joined with a space, the session token taken from the canonical request.
    static let suiteCases: [SuiteCase] = {
        guard let walker = FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: nil) else {
            return []
        }
        var cases: [SuiteCase] = []
        for case let url as URL in walker where url.pathExtension == "req" {
            let stem = url.deletingPathExtension()
            func read(_ ext: String) -> String {
                let text = (try? String(contentsOf: stem.appendingPathExtension(ext), encoding: .utf8)) ?? ""
                return text.replacingOccurrences(of: "\r", with: "")
            }
            let request = read("req")
            let lines = request.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let requestLine = lines.first, let space = requestLine.firstIndex(of: " "),
                let version = requestLine.range(of: " HTTP/", options: .backwards)
            else { continue }
            var headers: [HeaderField] = []
            var index = 1
            while index < lines.count, !lines[index].isEmpty {
                let line = lines[index]
                if line.first == " " || line.first == "\t", !headers.isEmpty {
                    headers[headers.count - 1].value += " " + line.trimmingCharacters(in: .whitespaces)
                } else if let colon = line.firstIndex(of: ":") {
                    headers.append(HeaderField(String(line[..<colon]), String(line[line.index(after: colon)...])))
                }
                index += 1
            }
            let body = lines.count > index + 1 ? lines[(index + 1)...].joined(separator: "\n") : ""
            let name = stem.path.replacingOccurrences(of: fixtures.path + "/", with: "")
            cases.append(
                SuiteCase(
                    name: String(name.split(separator: "/").dropLast().joined(separator: "/")),
                    method: String(requestLine[..<space]),
                    target: String(requestLine[requestLine.index(after: space)..<version.lowerBound]),
                    headers: headers, body: Array(body.utf8), canonicalRequest: read("creq"),
                    stringToSign: read("sts"), authorization: read("authz")))
        }
        return cases.sorted { $0.name < $1.name }
    }()

    @Test func theWholeSuiteIsRead() {
        // 34 cases: a folder gone missing, or a reader that skips some, fails here.
        #expect(Self.suiteCases.count == 34)
        #expect(Self.suiteCases.contains { $0.name == "normalize-path/get-space" })
        #expect(Self.suiteCases.contains { $0.name == "post-sts-token/post-sts-header-before" })
    }

    @Test(arguments: suiteCases) func signsTheTestSuiteCase(_ suiteCase: SuiteCase) throws {
        let token = suiteCase.canonicalRequest.split(separator: "\n")
            .first { $0.hasPrefix("x-amz-security-token:") }
            .map { String($0.dropFirst("x-amz-security-token:".count)) }
        var credentials = Self.suiteCredentials
        credentials.sessionToken = token
        let signer = AWSSigV4(
            service: "service", region: "us-east-1", credentials: credentials, sendsContentHash: false)
        let host = suiteCase.headers.first { $0.name.lowercased() == "host" }?.value ?? ""
        let signature = try signer.sign(
            method: suiteCase.method, authority: host, target: suiteCase.target, headers: suiteCase.headers,
            payload: .bytes(suiteCase.body), selection: .all, date: Self.suiteDate)
        #expect(signature.canonicalRequest == suiteCase.canonicalRequest)
        #expect(signature.stringToSign == suiteCase.stringToSign)
        #expect(signature.authorization == suiteCase.authorization)
        #expect(signature.headers.last == HeaderField("Authorization", suiteCase.authorization))
        #expect(signature.headers.first == HeaderField("X-Amz-Date", "20150830T123600Z"))
    }

    // MARK: Against botocore's signer

    /// One request for botocore and for the signer here.
    struct BotocoreCase: Encodable {
        var method: String
        var url: String
        var headers: [[String]]
        var body: String
        var service: String
        var region = "eu-west-3"
        var access_key = "AKIAIOSFODNN7EXAMPLE"
        var secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        var session_token: String?
        var timestamp = "20260301T081500Z"
        var unsigned = false
        var content_hash = true
    }

    /// What botocore set.
    struct BotocoreResult: Decodable {
        var date: String
        var contentHash: String?
        var token: String?
        var authorization: String
        var canonicalRequest: String

        enum CodingKeys: String, CodingKey {
            case date = "X-Amz-Date", contentHash = "X-Amz-Content-SHA256", token = "X-Amz-Security-Token"
            case authorization = "Authorization", canonicalRequest = "canonical_request"
        }
    }

    static let botocoreCases: [BotocoreCase] = [
        // S3: the path once encoded, as sent; a body; an x-amz-* header signed, a user agent not.
        BotocoreCase(
            method: "PUT", url: "https://reqplan-bucket.s3.eu-west-3.amazonaws.com/photos/a%20b%2Bc.jpg",
            headers: [
                ["Content-Type", "image/jpeg"], ["X-Amz-Meta-Colour", "  deep   red "], ["User-Agent", "reqplan"],
            ],
            body: "not really a jpeg", service: "s3"),
        // S3: a query to sort, an unsigned payload, a session token, a non-ASCII key.
        BotocoreCase(
            method: "GET", url: "https://s3.eu-west-3.amazonaws.com/reqplan-bucket/%E1%88%B4/?prefix=a%2Fb&list-type=2",
            headers: [], body: "", service: "s3",
            session_token: "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+token=", unsigned: true),
        // STS: a form body, a session token.
        BotocoreCase(
            method: "POST", url: "https://sts.eu-west-3.amazonaws.com/",
            headers: [["Content-Type", "application/x-www-form-urlencoded; charset=utf-8"]],
            body: "Action=GetCallerIdentity&Version=2011-06-15", service: "sts",
            session_token: "FwoGZXIvYXdzEBYaDHh4eHh4eHh4eHh4eA=="),
        // API Gateway: a non-ASCII path encoded twice, a repeated query name sorted by value, a port.
        BotocoreCase(
            method: "GET",
            url: "https://abc123.execute-api.eu-west-3.amazonaws.com:8443/prod/%E1%88%B4/x%20y?b=2&a=1&a=0",
            headers: [], body: "", service: "execute-api"),
        // IAM: dot segments and empty segments removed, then encoded again; an unsigned payload.
        BotocoreCase(
            method: "GET", url: "https://iam.amazonaws.com/a/./b/../c//d%2Fe?Action=ListUsers&Version=2010-05-08",
            headers: [], body: "", service: "iam", region: "us-east-1", unsigned: true),
    ]

    @Test(ExternalServers.needed(.botocore)) func signsAsBotocoreDoes() throws {
        let input = try JSONEncoder().encode(Self.botocoreCases)
        let folder = try ExternalServers.makeTemporaryFolder("sigv4-botocore")
        let inputFile = folder.appendingPathComponent("cases.json")
        try input.write(to: inputFile)
        let script = Self.scriptFolder.appendingPathComponent("sigv4-botocore.py").path
        let run = try runCommand("sh", ["-c", "python3 \"$0\" < \"$1\"", script, inputFile.path])
        try #require(run.status == 0, "\(run.output)")
        let expected = try JSONDecoder().decode([BotocoreResult].self, from: Data(run.output.utf8))
        try #require(expected.count == Self.botocoreCases.count)
        for (input, botocore) in zip(Self.botocoreCases, expected) {
            let signer = AWSSigV4(
                service: input.service, region: input.region,
                credentials: .init(
                    accessKeyID: input.access_key, secretAccessKey: input.secret_key, sessionToken: input.session_token)
            )
            let date = try #require(Self.date(input.timestamp))
            let signature = try signer.sign(
                method: input.method, url: try RequestURL(parsing: input.url),
                headers: input.headers.map { HeaderField($0[0], $0[1]) },
                payload: input.unsigned ? .unsigned : .bytes(Array(input.body.utf8)), date: date)
            let headers = Dictionary(signature.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            #expect(signature.canonicalRequest == botocore.canonicalRequest, "\(input.url)")
            #expect(signature.authorization == botocore.authorization, "\(input.url)")
            #expect(headers["X-Amz-Date"] == botocore.date)
            #expect(headers["X-Amz-Content-Sha256"] == botocore.contentHash, "\(input.url)")
            #expect(headers["X-Amz-Security-Token"] == botocore.token)
        }
    }

    static func date(_ timestamp: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: timestamp)
    }

    // MARK: The signer's own rules

    @Test func secretsAreListedAndNeverShown() throws {
        let credentials = AWSSigV4.Credentials(accessKeyID: "AKID", secretAccessKey: "k3y9", sessionToken: "t0k")
        let signature = try AWSSigV4(service: "s3", region: "us-east-1", credentials: credentials).sign(
            method: "GET", authority: "example.com", target: "/", headers: [], payload: .empty, date: Self.suiteDate)
        #expect(signature.secrets == [signature.signature, "k3y9", "t0k"])
        #expect(!"\(credentials)".contains("k3y9") && !"\(credentials)".contains("t0k"))
        #expect(
            signature.headers.map(\.name) == [
                "X-Amz-Date", "X-Amz-Content-Sha256", "X-Amz-Security-Token", "Authorization",
            ])
        // The secret key is in no header.
        #expect(!signature.headers.contains { $0.value.contains("k3y9") })
    }

    @Test func headersTheSignerSetsReplaceTheCallersAndStandardSelectionSkipsOthers() throws {
        let signature = try AWSSigV4(service: "sts", region: "us-east-1", credentials: Self.suiteCredentials).sign(
            method: "post", authority: "sts.amazonaws.com", target: "/",
            headers: [
                HeaderField("X-Amz-Date", "19990101T000000Z"), HeaderField("Authorization", "Basic x"),
                HeaderField("Accept", "*/*"), HeaderField("Content-Type", "text/plain"),
                HeaderField("X-Amz-Target", "A.B"),
            ],
            payload: .bytes(Array("x".utf8)), date: Self.suiteDate)
        #expect(signature.signedHeaders == "content-type;host;x-amz-content-sha256;x-amz-date;x-amz-target")
        #expect(signature.canonicalRequest.hasPrefix("POST\n/\n\n"))
        #expect(signature.canonicalRequest.contains("x-amz-date:20150830T123600Z\n"))
    }

    @Test(arguments: [
        (0.0, "19700101T000000Z"), (951_782_400, "20000229T000000Z"), (1_709_164_799.999, "20240228T235959Z"),
        (253_402_300_799, "99991231T235959Z"),
    ])
    func datesAreFormattedInUTC(_ seconds: Double, _ expected: String) throws {
        let signature = try AWSSigV4(service: "s3", region: "r", credentials: Self.suiteCredentials).sign(
            method: "GET", authority: "h", target: "/", headers: [], payload: .empty,
            date: Date(timeIntervalSince1970: seconds))
        #expect(signature.headers[0] == HeaderField("X-Amz-Date", expected))
    }

    @Test func hostileInputsAreRefusedWithAReasonNotATrap() {
        let good = Self.suiteCredentials
        func sign(
            service: String = "s3", region: String = "us-east-1", credentials: AWSSigV4.Credentials? = nil,
            method: String = "GET", target: String = "/", headers: [HeaderField] = [], date: Date = Self.suiteDate
        ) -> AWSSigV4Error? {
            do {
                _ = try AWSSigV4(service: service, region: region, credentials: credentials ?? good).sign(
                    method: method, authority: "example.com", target: target, headers: headers, payload: .empty,
                    date: date)
                return nil
            } catch {
                return error
            }
        }
        for seconds in [Double.infinity, -.infinity, .nan, -1, 1e300, 253_402_300_800] {
            #expect(sign(date: Date(timeIntervalSince1970: seconds))?.kind == .date, "\(seconds)")
        }
        #expect(sign(region: "us/east")?.kind == .scope)
        #expect(sign(service: "")?.kind == .scope)
        #expect(sign(service: "s3\n")?.kind == .scope)
        #expect(sign(credentials: .init(accessKeyID: "A/B", secretAccessKey: "s"))?.kind == .credentials)
        #expect(sign(credentials: .init(accessKeyID: "A", secretAccessKey: ""))?.kind == .credentials)
        #expect(
            sign(credentials: .init(accessKeyID: "A", secretAccessKey: "s", sessionToken: "t\r\nX-Evil: 1"))?.kind
                == .credentials)
        #expect(sign(method: "GET /")?.kind == .request)
        #expect(sign(target: "relative")?.kind == .request)
        #expect(sign(target: "/a\nb")?.kind == .request)
        #expect(sign(headers: [HeaderField("X-Amz-Meta-A", "a\r\nInjected: 1")])?.kind == .request)
        #expect(sign(headers: [HeaderField("X-Amz-Bad Name", "a")])?.kind == .request)
        // The message never holds the secret.
        let secret = AWSSigV4.Credentials(accessKeyID: "A", secretAccessKey: "k3y9", sessionToken: "k3y9\n")
        #expect(sign(credentials: secret).map { !$0.message.contains("k3y9") } == true)
    }

    @Test func aHugeRequestIsSignedInLinearTime() throws {
        // 20,000 query parameters and a 200,000-segment path: sorted and encoded, no quadratic step.
        let query = (0..<20_000).map { "k\(19_999 - $0)=v%20\($0)" }.joined(separator: "&")
        let path = String(repeating: "/a/..", count: 200_000) + "/end"
        let start = ContinuousClock.now
        let signature = try AWSSigV4(service: "execute-api", region: "r", credentials: Self.suiteCredentials).sign(
            method: "GET", authority: "h", target: path + "?" + query, headers: [], payload: .empty,
            date: Self.suiteDate)
        #expect(signature.canonicalRequest.hasPrefix("GET\n/end\nk0=v%2019999&k1=v%2019998&k10="))
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    // MARK: Against moto

    /// Sends a request signed for `service` with `credentials` through reqplan's transport.
    static func send(
        _ transport: HTTPClientTransport, _ moto: MotoServer, _ method: HTTPMethodName, _ target: String,
        service: String, credentials: AWSSigV4.Credentials, headers: [HeaderField] = [], body: [UInt8]? = nil,
        payload: AWSSigV4.Payload? = nil
    ) async throws -> TransportResponse {
        let url = try RequestURL(parsing: moto.url + target)
        let signature = try AWSSigV4(service: service, region: "us-east-1", credentials: credentials).sign(
            method: method.rawValue, url: url, headers: headers, payload: payload ?? .bytes(body ?? []), date: Date())
        let request = PreparedRequest(
            method: method, url: url, headers: headers + signature.headers, body: body, followRedirects: false)
        return try await transport.send(request, timeout: .seconds(30))
    }

    static func credentials(_ moto: MotoServer) -> AWSSigV4.Credentials {
        AWSSigV4.Credentials(accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey)
    }

    @Test(ExternalServers.needed(.moto), .timeSensitive) func s3AcceptsWhatIsSignedAndRefusesAWrongSecret()
        async throws
    {
        let moto = try await MotoServer.shared()
        let good = Self.credentials(moto)
        let bucket = "reqplan-\(UUID().uuidString.prefix(8).lowercased())"
        try await HTTPClientTransport.with(.init()) { transport in
            let created = try await Self.send(transport, moto, .PUT, "/\(bucket)", service: "s3", credentials: good)
            #expect(created.status == 200, "\(String(decoding: created.body, as: UTF8.self))")
            // A key with a space, once encoded on the wire; a typed body. (moto refuses boto3's own signature
            // for a key with a non-ASCII letter or a `+`, so those are checked against botocore's signer only.)
            let key = "/\(bucket)/notes/a%20b.txt"
            let body = Array("signed body: héllo".utf8)
            let put = try await Self.send(
                transport, moto, .PUT, key, service: "s3", credentials: good,
                headers: [HeaderField("Content-Type", "text/plain; charset=utf-8")], body: body)
            #expect(put.status == 200, "\(String(decoding: put.body, as: UTF8.self))")
            let got = try await Self.send(transport, moto, .GET, key, service: "s3", credentials: good)
            #expect(got.status == 200 && got.body == body, "\(String(decoding: got.body, as: UTF8.self))")
            // An unsigned payload, as a streaming upload sends.
            let unsigned = try await Self.send(
                transport, moto, .PUT, "/\(bucket)/streamed", service: "s3", credentials: good,
                body: Array("streamed".utf8), payload: .unsigned)
            #expect(unsigned.status == 200, "\(String(decoding: unsigned.body, as: UTF8.self))")
            // A query, sorted. (moto refuses boto3's own signature for a `%2F` in the query, so none here.)
            let listed = try await Self.send(
                transport, moto, .GET, "/\(bucket)?prefix=notes&list-type=2&max-keys=10", service: "s3",
                credentials: good)
            let listing = String(decoding: listed.body, as: UTF8.self)
            #expect(listed.status == 200 && listing.contains("<KeyCount>1</KeyCount>"), "\(listing)")

            // The same request with a wrong secret.
            var wrong = good
            wrong.secretAccessKey += "x"
            let refused = try await Self.send(transport, moto, .GET, key, service: "s3", credentials: wrong)
            #expect(refused.status == 403)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("SignatureDoesNotMatch"))
            // A signed header changed after signing. (moto does not compare the body with its signed hash, as
            // S3 does, so a changed body is not tried.)
            let url = try RequestURL(parsing: moto.url + key)
            let signature = try AWSSigV4(service: "s3", region: "us-east-1", credentials: good).sign(
                method: "GET", url: url, headers: [HeaderField("Content-Type", "text/plain")], payload: .empty,
                date: Date())
            let tampered = try await transport.send(
                PreparedRequest(
                    method: .GET, url: url, headers: [HeaderField("Content-Type", "text/html")] + signature.headers,
                    body: nil),
                timeout: .seconds(30))
            #expect(tampered.status == 403)
            #expect(String(decoding: tampered.body, as: UTF8.self).contains("SignatureDoesNotMatch"))
        }
    }

    @Test(ExternalServers.needed(.moto), .timeSensitive) func stsAndIAMAcceptWhatIsSignedAndRefuseAWrongSecret()
        async throws
    {
        let moto = try await MotoServer.shared()
        let good = Self.credentials(moto)
        let form = [HeaderField("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")]
        try await HTTPClientTransport.with(.init()) { transport in
            let identity = try await Self.send(
                transport, moto, .POST, "/", service: "sts", credentials: good, headers: form,
                body: Array("Action=GetCallerIdentity&Version=2011-06-15".utf8))
            let text = String(decoding: identity.body, as: UTF8.self)
            #expect(identity.status == 200 && text.contains("user/\(MotoServer.userName)"), "\(text)")
            // IAM with the action in the query.
            let users = try await Self.send(
                transport, moto, .GET, "/?Version=2010-05-08&Action=ListUsers", service: "iam", credentials: good)
            let listed = String(decoding: users.body, as: UTF8.self)
            #expect(users.status == 200 && listed.contains("<UserName>\(MotoServer.userName)</UserName>"), "\(listed)")

            var wrong = good
            wrong.secretAccessKey = String(wrong.secretAccessKey.reversed())
            let refused = try await Self.send(
                transport, moto, .POST, "/", service: "sts", credentials: wrong, headers: form,
                body: Array("Action=GetCallerIdentity&Version=2011-06-15".utf8))
            #expect(refused.status == 403)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("SignatureDoesNotMatch"))
        }
    }

    @Test(ExternalServers.needed(.moto), .timeSensitive) func temporaryCredentialsWithTheirSessionTokenAreAccepted()
        async throws
    {
        let moto = try await MotoServer.shared()
        let good = Self.credentials(moto)
        let role = "reqplan-role-\(UUID().uuidString.prefix(8).lowercased())"
        let form = [HeaderField("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")]
        func encoded(_ text: String) -> String { URLEncoding.percentEncode(text) }
        try await HTTPClientTransport.with(.init()) { transport in
            let trust =
                #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"#
                + #""Action":"sts:AssumeRole"}]}"#
            let everything = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
            for body in [
                "Action=CreateRole&Version=2010-05-08&RoleName=\(role)&AssumeRolePolicyDocument=\(encoded(trust))",
                "Action=PutRolePolicy&Version=2010-05-08&RoleName=\(role)&PolicyName=all&PolicyDocument="
                    + encoded(everything),
            ] {
                let made = try await Self.send(
                    transport, moto, .POST, "/", service: "iam", credentials: good, headers: form,
                    body: Array(body.utf8))
                #expect(made.status == 200, "\(String(decoding: made.body, as: UTF8.self))")
            }
            let assumed = try await Self.send(
                transport, moto, .POST, "/", service: "sts", credentials: good, headers: form,
                body: Array(
                    ("Action=AssumeRole&Version=2011-06-15&RoleSessionName=reqplan&RoleArn="
                        + encoded("arn:aws:iam::123456789012:role/\(role)")).utf8))
            let text = String(decoding: assumed.body, as: UTF8.self)
            try #require(assumed.status == 200, "\(text)")
            func element(_ name: String) -> String? {
                guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>") else {
                    return nil
                }
                return String(text[start.upperBound..<end.lowerBound])
            }
            let token = try #require(element("SessionToken"))
            let temporary = AWSSigV4.Credentials(
                accessKeyID: try #require(element("AccessKeyId")),
                secretAccessKey: try #require(element("SecretAccessKey")), sessionToken: token)
            let identity = try await Self.send(
                transport, moto, .POST, "/", service: "sts", credentials: temporary, headers: form,
                body: Array("Action=GetCallerIdentity&Version=2011-06-15".utf8))
            let who = String(decoding: identity.body, as: UTF8.self)
            #expect(identity.status == 200 && who.contains("assumed-role/\(role)/reqplan"), "\(who)")
            // Another token with the same key: refused.
            var otherToken = temporary
            otherToken.sessionToken = "not-the-token"
            let refused = try await Self.send(
                transport, moto, .POST, "/", service: "sts", credentials: otherToken, headers: form,
                body: Array("Action=GetCallerIdentity&Version=2011-06-15".utf8))
            #expect(refused.status == 403, "\(String(decoding: refused.body, as: UTF8.self))")
        }
    }
}
