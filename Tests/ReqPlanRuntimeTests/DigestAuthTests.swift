import Foundation
import ReqPlanHTTP
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTestSupport
import ReqPlanTransport
import Testing

/// HTTP Digest: the RFCs' own examples, the challenge reader on well-formed and hostile values, and httpbin's
/// `/digest-auth` (PyPI httpbin under gunicorn), which checks the answer as a server does.
@Suite struct DigestAuthTests {
    /// RFC 7616 §3.9.1's two challenges, in one value (as a server folding its fields would send them).
    static let rfc7616Challenges = """
        Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, \
        nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", \
        Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, \
        nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        """
    static let mufasa = DigestAuth(username: "Mufasa", password: "Circle of Life")
    static let rfc7616ClientNonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    // MARK: The RFCs' examples

    @Test func answersRFC7616sSHA256ExampleExactly() throws {
        let challenge = try DigestAuth.preferredChallenge(in: [Self.rfc7616Challenges])
        #expect(challenge.algorithm == .sha256 && challenge.qop == ["auth", "auth-int"])
        let answer = try Self.mufasa.authorization(
            for: challenge, method: "GET", uri: "/dir/index.html", cnonce: Self.rfc7616ClientNonce)
        // RFC 7616 §3.9.1, its parameters in its order.
        #expect(
            answer.authorization
                == #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", "#
                + #"algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, "#
                + #"cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, "#
                + #"response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", "#
                + #"opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#)
        #expect(
            answer.secrets == ["Circle of Life", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"])
    }

    @Test func answersRFC7616sMD5ExampleExactly() throws {
        let challenges = try DigestAuth.challenges(in: [Self.rfc7616Challenges])
        #expect(challenges.map(\.algorithm) == [.sha256, .md5])
        let answer = try Self.mufasa.authorization(
            for: challenges[1], method: "GET", uri: "/dir/index.html", cnonce: Self.rfc7616ClientNonce)
        #expect(answer.response == "8ca523f5e9506fed4657c9700eebdbec")
        #expect(answer.authorization.contains(#", algorithm=MD5, nonce=""#))
    }

    @Test func answersRFC2617sExampleExactly() throws {
        // RFC 2617 §3.5: no algorithm named, so none is named back.
        let value = """
            Digest
                realm="testrealm@host.com",
                qop="auth,auth-int",
                nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093",
                opaque="5ccc069c403ebaf9f0171e9517f40e41"
            """.replacingOccurrences(of: "\n", with: "")
        let challenge = try DigestAuth.preferredChallenge(in: [value])
        let answer = try DigestAuth(username: "Mufasa", password: "Circle Of Life").authorization(
            for: challenge, method: "GET", uri: "/dir/index.html", cnonce: "0a4f113b")
        #expect(
            answer.authorization
                == #"Digest username="Mufasa", realm="testrealm@host.com", uri="/dir/index.html", "#
                + #"nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", nc=00000001, cnonce="0a4f113b", qop=auth, "#
                + #"response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41""#)
    }

    @Test func answersWithoutQopAsRFC2069AndWithSessionAlgorithms() throws {
        let legacy = try DigestAuth.preferredChallenge(in: [#"Digest realm="r", nonce="n""#])
        let answer = try DigestAuth(username: "u", password: "p").authorization(for: legacy, method: "GET", uri: "/")
        // MD5(MD5("u:r:p") ":n:" MD5("GET:/")), as Python's hashlib computes it.
        #expect(answer.response == "f23121ca97143c6b358da620220c83b4")
        #expect(!answer.authorization.contains("qop=") && !answer.authorization.contains("cnonce="))
        #expect(answer.cnonce == nil && answer.nonceCount == nil)

        let session = try DigestAuth.preferredChallenge(in: [
            #"Digest realm="r", nonce="n", algorithm=SHA-256-sess, qop="auth""#
        ])
        let sessionAnswer = try DigestAuth(username: "u", password: "p").authorization(
            for: session, method: "GET", uri: "/", cnonce: "c", nonceCount: 255)
        #expect(sessionAnswer.authorization.contains("nc=000000ff"))
        #expect(sessionAnswer.authorization.contains("algorithm=SHA-256-sess"))
        // A -sess algorithm without qop has no client nonce to put in A1.
        let noQop = try DigestAuth.preferredChallenge(in: [#"Digest realm="r", nonce="n", algorithm=MD5-sess"#])
        #expect(throws: DigestAuthError.self) {
            try DigestAuth(username: "u", password: "p").authorization(for: noQop, method: "GET", uri: "/")
        }
    }

    @Test func authIntSignsTheBodyOrIsRefusedWithoutIt() throws {
        let challenge = try DigestAuth.preferredChallenge(in: [#"Digest realm="r", nonce="n", qop="auth-int""#])
        let user = DigestAuth(username: "u", password: "p")
        let error = #expect(throws: DigestAuthError.self) {
            try user.authorization(for: challenge, method: "POST", uri: "/", cnonce: "c")
        }
        #expect(error?.kind == .unsupported && error?.message.contains("auth-int") == true)
        let one = try user.authorization(for: challenge, method: "POST", uri: "/", cnonce: "c", body: Array("a".utf8))
        let other = try user.authorization(for: challenge, method: "POST", uri: "/", cnonce: "c", body: Array("b".utf8))
        #expect(one.qop == "auth-int" && one.response != other.response)
    }

    @Test func userhashAndNonASCIIUserNames() throws {
        let hashed = try DigestAuth.preferredChallenge(in: [
            #"Digest realm="api@example.org", nonce="n", qop="auth", algorithm=SHA-256, userhash=true"#
        ])
        let answer = try DigestAuth(username: "Jäsøn Doe", password: "Secret, or not?").authorization(
            for: hashed, method: "GET", uri: "/doe.json", cnonce: "c")
        // SHA-256("Jäsøn Doe:api@example.org") (RFC 7616 §3.9.2 gives this user name's hash for SHA-512-256).
        #expect(answer.authorization.hasPrefix(#"Digest username=""#))
        #expect(!answer.authorization.contains("Jäsøn") && answer.authorization.hasSuffix("userhash=true"))
        let plain = try DigestAuth.preferredChallenge(in: [#"Digest realm="api@example.org", nonce="n", qop="auth""#])
        let encoded = try DigestAuth(username: "Jäsøn Doe", password: "x").authorization(
            for: plain, method: "GET", uri: "/", cnonce: "c")
        // RFC 7616 §3.9.2's `username*`.
        #expect(encoded.authorization.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, "))
        // Quotes and backslashes are escaped, not cut.
        let quoted = try DigestAuth(username: #"a"b\c"#, password: "x").authorization(
            for: plain, method: "GET", uri: "/", cnonce: "c")
        #expect(quoted.authorization.hasPrefix(#"Digest username="a\"b\\c", "#))
    }

    // MARK: Reading challenges

    @Test func readsChallengesAsRFC9110WritesThem() throws {
        let challenges = try DigestAuth.challenges(in: [
            #"Basic realm="simple", Bearer abc.def+ghi/jkl==, Newauth realm="apps", type=1, title="Login to \"apps\"", "#
                + #"Digest realm="a\"b\\c", NONCE=n1, Qop="AUTH, x-unknown", Stale=TRUE, unknown="ignored", "#
                + #"domain="/a /b", charset=UTF-8"#,
            #"Digest realm="", nonce="n2", algorithm=SHA-512-256"#,
        ])
        #expect(challenges.count == 2)
        #expect(challenges[0].realm == #"a"b\c"# && challenges[0].nonce == "n1")
        #expect(challenges[0].qop == ["auth", "x-unknown"] && challenges[0].stale && challenges[0].charsetIsUTF8)
        #expect(challenges[0].domain == "/a /b" && challenges[0].algorithm == .md5 && !challenges[0].namesAlgorithm)
        #expect(challenges[1].realm.isEmpty && !challenges[1].algorithm.isSupported)
        // The first supported one is chosen; with only unsupported ones, a clear refusal.
        #expect(
            try DigestAuth.preferredChallenge(in: [
                #"Digest realm="r", nonce="x", algorithm=SHA-512-256"#, #"Digest realm="r", nonce="y""#,
            ]).nonce == "y")
        let unsupported = #expect(throws: DigestAuthError.self) {
            try DigestAuth.preferredChallenge(in: [#"Digest realm="r", nonce="x", algorithm=SHA-512-256"#])
        }
        #expect(unsupported?.kind == .unsupported && unsupported?.message.contains("SHA-512-256") == true)
        let none = #expect(throws: DigestAuthError.self) {
            try DigestAuth.preferredChallenge(in: [#"Basic realm="x""#, "Bearer"])
        }
        #expect(none?.kind == .noChallenge)
        // Algorithm names are compared but for case, and named back as written.
        let lower = try DigestAuth.preferredChallenge(in: [#"Digest realm="r", nonce="n", algorithm=sha-256"#])
        #expect(lower.algorithm == .sha256 && lower.algorithm.name == "sha-256")
        let answer = try Self.mufasa.authorization(for: lower, method: "GET", uri: "/", cnonce: "c")
        #expect(answer.authorization.contains(", algorithm=sha-256, "))
        // A long run of empty list elements is read in one pass.
        let commas = #"Digest realm="r", nonce="n""# + String(repeating: ",", count: 16_000)
        #expect(try DigestAuth.challenges(in: [commas]).count == 1)
        // Empty list elements and tabs are allowed.
        #expect(try DigestAuth.challenges(in: [",\t, Digest\trealm=r ,, nonce = \"n\" ,"]).first?.nonce == "n")
    }

    /// Values a hostile or broken server sends, and the kind of error each gets.
    static let hostile: [(String, String)] = [
        (#"Digest realm="r", nonce="n"#, "malformed"),  // unterminated
        (#"Digest realm="r", nonce="n\"#, "malformed"),  // ends in a backslash
        ("Digest realm=\"r\u{0}\", nonce=\"n\"", "malformed"),  // NUL in a quoted string
        ("Digest realm=\"r\", nonce=n\r\nSet-Cookie: a=b", "malformed"),  // CR LF outside quotes
        ("Digest realm=\"r\", nonce=\"n\u{1B}[2J\"", "malformed"),  // an escape sequence
        (#"Digest realm="r""#, "missing_parameter"),  // no nonce
        (#"Digest nonce="n""#, "missing_parameter"),  // no realm
        (#"Digest realm="r", nonce="""#, "missing_parameter"),  // an empty nonce
        (#"Digest realm="r", nonce="n", realm="s""#, "malformed"),  // realm twice
        (#"Digest realm="r" nonce="n""#, "malformed"),  // no comma
        (#"Digest realm=, nonce="n""#, "missing_parameter"),  // `realm=` alone is a token68: no realm
        (#"Digest realm"#, "missing_parameter"),  // a token68 for Digest: no parameters
        ("Digest =x", "malformed"),
        (#"Digest "r""#, "malformed"),
        (String(repeating: "Digest realm=\"r\", nonce=\"n\", ", count: 17), "too_large"),  // 17 challenges
        ("Digest " + (0..<33).map { "p\($0)=v" }.joined(separator: ", "), "too_large"),  // 33 parameters
        ("Digest realm=\"" + String(repeating: "a", count: 20_000) + "\", nonce=\"n\"", "too_large"),
        ("Digest realm=\"" + String(repeating: "\\", count: 16_000), "malformed"),  // escapes to the end
    ]

    @Test(arguments: hostile.indices) func hostileChallengesGetAClearErrorNotACrash(_ index: Int) {
        let (value, kind) = Self.hostile[index]
        let error = #expect(throws: DigestAuthError.self, "\(value.prefix(60))") {
            try DigestAuth.preferredChallenge(in: [value])
        }
        #expect(error?.kind.rawValue == kind, "\(value.prefix(60)): \(error?.message ?? "")")
        // The message quotes nothing the server chose (but parameter names).
        #expect(error.map { !$0.message.contains("\u{1B}") && !$0.message.contains("\r") } == true)
    }

    @Test func randomlyEditedChallengesAreReadOrRefusedNeverATrap() {
        // RFC 7616's challenges edited at random, 1 to 8 times each, with pieces of challenges and the bytes that
        // break readers (seeded: a failure reproduces).
        let pieces = [
            "", "Digest ", "Basic", " ", "\t", ",", "=", "==", "\"", "\\", "realm=", "nonce=", "qop=", "auth",
            "auth-int", "algorithm=MD5-sess", "SHA-256", "stale=true", "userhash=true", "x", "\u{0}", "\r\n",
            "\u{7F}", "é", "/", "+", "\"r\"",
        ]
        var generator = SeededGenerator(seed: 7616)
        var (read, answered) = (0, 0)
        for _ in 0..<3_000 {
            var value = Self.rfc7616Challenges
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                value = randomEdit(of: value, pieces: pieces, removing: 4, using: &generator)
            }
            guard let challenge = try? DigestAuth.preferredChallenge(in: [value]) else { continue }
            read += 1
            if (try? Self.mufasa.authorization(for: challenge, method: "GET", uri: "/", body: [])) != nil {
                answered += 1
            }
        }
        // Many stay challenges that can be answered, many do not: both paths are taken.
        #expect(read > 300 && read < 2_700 && answered > 300, "\(read) read, \(answered) answered")
    }

    @Test func inputsThatCannotBeSentAreRefused() throws {
        let challenge = try DigestAuth.preferredChallenge(in: [#"Digest realm="r", nonce="n", qop="auth""#])
        let user = DigestAuth(username: "u", password: "p")
        for (method, uri, cnonce, nc) in [
            ("GET", "/a b", "c", UInt32(1)), ("GET", "", "c", 1), ("GET", "/", "c\"", 1), ("GET", "/", "", 1),
            ("G T", "/", "c", 1), ("GET", "/", "c", 0), ("GET", "/\r\n", "c", 1),
        ] {
            let error = #expect(throws: DigestAuthError.self, "\(method) \(uri) \(cnonce) \(nc)") {
                try user.authorization(for: challenge, method: method, uri: uri, cnonce: cnonce, nonceCount: nc)
            }
            #expect(error?.kind == .invalidInput)
        }
        // A random client nonce each time.
        let first = try user.authorization(for: challenge, method: "GET", uri: "/")
        let second = try user.authorization(for: challenge, method: "GET", uri: "/")
        #expect(first.cnonce?.count == 32 && first.cnonce != second.cnonce)
    }

    // MARK: Against httpbin

    /// Sends `GET path` with `authorization` (none: nil) through `transport`.
    static func get(
        _ transport: HTTPClientTransport, _ url: RequestURL, authorization: String? = nil
    ) async throws -> TransportResponse {
        let headers = authorization.map { [HeaderField("Authorization", $0)] } ?? []
        return try await transport.send(
            PreparedRequest(method: .GET, url: url, headers: headers, body: nil), timeout: .seconds(30))
    }

    /// The Digest challenges of a response.
    static func challenges(_ response: TransportResponse) -> [String] {
        response.headers.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
    }

    /// The 401's challenge, then the answer, as `curl --digest` sends them, through reqplan's transport, whose
    /// cookie jar sends back the cookies httpbin sets with its challenge (`fake`, `stale_after`).
    ///
    /// httpbin checks the `uri` against its decoded path and fails (500) on a query, so the paths here are ASCII
    /// without one: `?require-cookie=true` would make it check the cookie but for that.
    static func authenticate(
        _ httpbin: Httpbin, path: String, username: String, password: String
    ) async throws -> (challenge: TransportResponse, answered: TransportResponse) {
        try await HTTPClientTransport.with(.init()) { transport in
            let url = try RequestURL(parsing: httpbin.url + path)
            let challenged = try await get(transport, url)
            let challenge = try DigestAuth.preferredChallenge(in: challenges(challenged))
            let answer = try DigestAuth(username: username, password: password).authorization(
                for: challenge, method: "GET", uri: url.target)
            return (challenged, try await get(transport, url, authorization: answer.authorization))
        }
    }

    @Test(ExternalServers.needed(.httpbin), .timeSensitive, arguments: ["MD5", "SHA-256"])
    func httpbinAcceptsTheAnswerAndRefusesAWrongPassword(_ algorithm: String) async throws {
        let httpbin = try await Httpbin.shared()
        let path = "/digest-auth/auth/alice/s3cr3t/\(algorithm)"
        let good = try await Self.authenticate(httpbin, path: path, username: "alice", password: "s3cr3t")
        #expect(good.challenge.status == 401)
        let challenge = try DigestAuth.preferredChallenge(in: Self.challenges(good.challenge))
        #expect(challenge.algorithm.name == algorithm && challenge.qop == ["auth"] && !challenge.stale)
        let body = String(decoding: good.answered.body, as: UTF8.self)
        #expect(good.answered.status == 200 && body.contains(#""authenticated": true"#), "\(body)")

        // (httpbin checks the password only: it hashes whatever user name the answer gives.)
        let wrong = try await Self.authenticate(httpbin, path: path, username: "alice", password: "s3cr3T")
        #expect(wrong.challenge.status == 401 && wrong.answered.status == 401)
    }

    @Test(ExternalServers.needed(.httpbin), .timeSensitive)
    func aStaleNonceIsAnsweredAgainWithTheNewOne() async throws {
        let httpbin = try await Httpbin.shared()
        // `stale_after/1`: httpbin takes one answer, then calls the nonce stale (its cookies count).
        try await HTTPClientTransport.with(.init()) { transport in
            let url = try RequestURL(parsing: httpbin.url + "/digest-auth/auth/alice/s3cr3t/SHA-256/1")
            let user = DigestAuth(username: "alice", password: "s3cr3t")
            let first = try DigestAuth.preferredChallenge(in: Self.challenges(try await Self.get(transport, url)))
            let answered = try await Self.get(
                transport, url,
                authorization: try user.authorization(for: first, method: "GET", uri: url.target).authorization)
            #expect(answered.status == 200)
            let again = try await Self.get(
                transport, url,
                authorization: try user.authorization(for: first, method: "GET", uri: url.target, nonceCount: 2)
                    .authorization)
            #expect(again.status == 401)
            let stale = try DigestAuth.preferredChallenge(in: Self.challenges(again))
            #expect(stale.stale && stale.nonce != first.nonce)
            let renewed = try await Self.get(
                transport, url,
                authorization: try user.authorization(for: stale, method: "GET", uri: url.target).authorization)
            #expect(renewed.status == 200, "\(String(decoding: renewed.body, as: UTF8.self))")
        }
    }
}
