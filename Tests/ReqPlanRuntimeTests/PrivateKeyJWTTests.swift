import Crypto
import Foundation
import ReqPlanHTTP
import ReqPlanSyntax
import ReqPlanTestSupport
import ReqPlanTransport
import Testing

@testable import ReqPlanRuntime

/// `client_auth: private_key_jwt` (RFC 7523): the client signs an assertion with its private key, and Authlib's
/// authorization server checks it against the public key the client registered, its claims, and that its
/// `jti` is new. RSA and EC keys; one token for two hundred requests; a fresh assertion for each renewal (the
/// server refuses a `jti` used before); a key the server does not hold and a text that is no key, each named
/// as the step's reason without a word of the key.
@Suite(.timeSensitive) struct PrivateKeyJWTTests {
    static func plan(_ provider: AuthlibProvider, steps: String, keyID: String = "") -> String {
        """
        reqplan: 1
        inputs:
          client_id: { type: string }
          private_key: { type: string, secret: true }
        defaults:
          base_url: \(provider.url)
          auth:
            oauth2:
              token_url: \(provider.tokenURL)
              client_id: "${{ inputs.client_id }}"
              client_auth: private_key_jwt
              private_key: "${{ inputs.private_key }}"
              scope: read\(keyID.isEmpty ? "" : "\n      key_id: \(keyID)")
        steps:
        \(steps)
        """
    }

    /// Runs `yaml` as `client` with `key`, as `OAuthRunTests.run` does.
    static func run(
        _ yaml: String, over transport: any Transport, client: String, key: String,
        tokens: TokenCache<OAuthGrant> = TokenCache()
    ) async throws -> RunResult {
        try await OAuthRunTests.run(
            yaml, over: transport, tokens: tokens, inputs: ["client_id": .string(client), "private_key": .string(key)])
    }

    static func count(_ line: String, in provider: AuthlibProvider) -> Int {
        provider.log.components(separatedBy: line).count - 1
    }

    static let tokenGranted = "\"POST /token HTTP/1.1\" 200"

    @Test(ExternalServers.needed(.authlib), arguments: ["rsa-client", "ec-client"])
    func twoHundredRequestsShareOneTokenTheClientsAssertionGot(client: String) async throws {
        let provider = try await AuthlibProvider.start()
        defer { provider.stop() }
        let yaml = Self.plan(
            provider,
            steps: """
                  me:
                    for_each: \(Array(0..<200))
                    concurrency: 32
                    request: { url: /api/me }
                    expect: { status: 200, body: { client: \(client) } }
                """, keyID: "key-1")
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(
                yaml, over: transport, client: client, key: try provider.privateKey(of: client))
            #expect(result.results["me"]?.state == .succeeded, "\(String(describing: result.results["me"]?.reason))")
        }
        #expect(Self.count(Self.tokenGranted, in: provider) == 1)
        #expect(Self.count("\"GET /api/me HTTP/1.1\" 200", in: provider) == 200)
    }

    @Test(ExternalServers.needed(.authlib))
    func eachRenewalSignsANewAssertion() async throws {
        let provider = try await AuthlibProvider.start(tokenLifetime: 2)
        defer { provider.stop() }
        let yaml = Self.plan(provider, steps: "  me: { request: { url: /api/me } }")
        let tokens = TokenCache<OAuthGrant>()
        try await HTTPClientTransport.with(.init()) { transport in
            for pass in 0..<2 {
                if pass == 1 { try await Task.sleep(for: .milliseconds(2500)) }
                let result = try await Self.run(
                    yaml, over: transport, client: "rsa-client", key: try provider.privateKey(of: "rsa-client"),
                    tokens: tokens)
                #expect(
                    result.results["me"]?.state == .succeeded, "\(String(describing: result.results["me"]?.reason))")
            }
        }
        // The server refuses an assertion whose `jti` it has seen: the second token needed a new one.
        #expect(Self.count(Self.tokenGranted, in: provider) == 2)
    }

    @Test(ExternalServers.needed(.authlib))
    func aKeyTheServerDoesNotHoldIsRefusedAsTheStepsReason() async throws {
        let provider = try await AuthlibProvider.start()
        defer { provider.stop() }
        let yaml = Self.plan(provider, steps: "  me: { request: { url: /api/me } }")
        let stranger = try provider.privateKey(of: "stranger")
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(yaml, over: transport, client: "rsa-client", key: stranger)
            let reason = try #require(result.results["me"]?.reason)
            #expect(result.results["me"]?.state == .failed)
            #expect(reason.kind == .authorization)
            #expect(reason.message.contains("invalid_client"), "\(reason.message)")
            #expect(!reason.message.contains("PRIVATE KEY"))
        }
        #expect(Self.count("\"GET /api/me", in: provider) == 0)
    }

    @Test(ExternalServers.needed(.authlib))
    func aTextThatIsNoKeyFailsBeforeAnythingIsSent() async throws {
        let provider = try await AuthlibProvider.start()
        defer { provider.stop() }
        let yaml = Self.plan(provider, steps: "  me: { request: { url: /api/me } }")
        let notAKey = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ1dC1ub3QtYS1rZXk=\n-----END PRIVATE KEY-----\n"
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(yaml, over: transport, client: "rsa-client", key: notAKey)
            let reason = try #require(result.results["me"]?.reason)
            #expect(reason.kind == .authorization)
            #expect(reason.message.contains("not a PEM private key"), "\(reason.message)")
            #expect(!reason.message.contains("c2VjcmV0"))
        }
        #expect(Self.count("\"POST /token", in: provider) == 0)
    }

    /// The assertion as RFC 7523 §3 has it, for each kind of key, checked here with swift-crypto's own
    /// verification (Ed25519 included, which Authlib's JOSE library refuses as deprecated under RFC 9864).
    @Test func theAssertionCarriesTheClaimsAndASignatureTheKeysPublicHalfVerifies() async throws {
        let ed = Curve25519.Signing.PrivateKey()
        let p256 = P256.Signing.PrivateKey()
        let edPEM = try edPEM(ed)
        for (pem, alg) in [(edPEM, "EdDSA"), (p256.pemRepresentation, "ES256")] {
            let assertion = ClientAssertion(privateKey: pem, keyID: "k1")
            let token = try await assertion.signed(
                clientID: "me", audience: "https://a.example/token", now: Date(timeIntervalSince1970: 1_000_000))
            let parts = token.split(separator: ".").map(String.init)
            try #require(parts.count == 3)
            let header = try JSONSerialization.jsonObject(with: try #require(Self.base64URL(parts[0])))
            let claims = try JSONSerialization.jsonObject(with: try #require(Self.base64URL(parts[1])))
            let h = try #require(header as? [String: Any])
            let c = try #require(claims as? [String: Any])
            #expect(h["alg"] as? String == alg)
            #expect(h["kid"] as? String == "k1")
            #expect(c["iss"] as? String == "me" && c["sub"] as? String == "me")
            #expect(
                c["aud"] as? String == "https://a.example/token"
                    || (c["aud"] as? [String]) == ["https://a.example/token"])
            #expect((c["exp"] as? Double).map { Int($0) } == 1_000_060)
            #expect((c["jti"] as? String)?.isEmpty == false)
            let signed = Data((parts[0] + "." + parts[1]).utf8)
            let signature = try #require(Self.base64URL(parts[2]))
            if alg == "EdDSA" {
                #expect(ed.publicKey.isValidSignature(signature, for: signed))
            } else {
                let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
                #expect(p256.publicKey.isValidSignature(ecdsa, for: signed))
            }
            // A new `jti` each time.
            let again = try await assertion.signed(clientID: "me", audience: "https://a.example/token")
            #expect(again != token)
        }
    }

    /// An Ed25519 private key as PKCS #8 PEM (RFC 8410), which swift-crypto reads but does not write.
    func edPEM(_ key: Curve25519.Signing.PrivateKey) throws -> String {
        let prefix: [UInt8] = [
            0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
        ]
        let der = Data(prefix) + key.rawRepresentation
        return "-----BEGIN PRIVATE KEY-----\n" + der.base64EncodedString() + "\n-----END PRIVATE KEY-----\n"
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
