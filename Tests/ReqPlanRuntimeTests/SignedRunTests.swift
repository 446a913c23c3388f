import Foundation
import ReqPlanHTTP
import ReqPlanSyntax
import ReqPlanTestSupport
import ReqPlanTransport
import Testing

@testable import ReqPlanRuntime

/// Plans with `auth: { aws_sigv4 }` against moto's server with IAM authentication on (it checks every
/// signature), and `auth: { digest }` against httpbin's `/digest-auth`: each request answered as the server
/// asks, a wrong secret refused by the server, the second sending of a Digest request within one attempt.
@Suite(.timeSensitive) struct SignedRunTests {
    static func run(_ yaml: String, over transport: any Transport, inputs: [String: Value]) async throws -> RunResult {
        let graph = try makeGraph(yaml)
        let configuration = RunConfiguration(
            files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
        let executor = Executor(
            graph: graph, transport: transport, inputs: RunInputs(values: inputs, environment: [:]),
            configuration: configuration)
        return await executor.run()
    }

    static func reason(_ result: RunResult, _ step: String) -> String {
        String(describing: result.results[step]?.reason)
    }

    @Test(ExternalServers.needed(.moto))
    func aPlanSignedWithSigV4WritesAndReadsS3AndAsksSTSWhoItIs() async throws {
        let moto = try await MotoServer.shared()
        let bucket = "plan-\(UUID().uuidString.prefix(8).lowercased())"
        let yaml = """
            reqplan: 1
            inputs:
              key_id: { type: string }
              secret: { type: string }
            defaults:
              base_url: \(moto.url)
              auth:
                aws_sigv4:
                  access_key_id: "${{ inputs.key_id }}"
                  secret_access_key: "${{ inputs.secret }}"
                  region: us-east-1
                  service: s3
            steps:
              bucket: { request: { method: PUT, url: /\(bucket) } }
              put:
                needs: [bucket]
                request: { method: PUT, url: "/\(bucket)/notes/a%20b.txt", body: "signed body: héllo" }
              streamed:
                needs: [bucket]
                request:
                  method: PUT
                  url: /\(bucket)/streamed
                  body: streamed
                  auth:
                    aws_sigv4:
                      access_key_id: "${{ inputs.key_id }}"
                      secret_access_key: "${{ inputs.secret }}"
                      region: us-east-1
                      service: s3
                      unsigned_payload: true
              get:
                needs: [put]
                request: { url: "/\(bucket)/notes/a%20b.txt" }
                expect: { body: { $: "signed body: héllo" } }
              who:
                request:
                  method: POST
                  url: /
                  form: { Action: GetCallerIdentity, Version: "2011-06-15" }
                  auth:
                    aws_sigv4:
                      access_key_id: "${{ inputs.key_id }}"
                      secret_access_key: "${{ inputs.secret }}"
                      region: us-east-1
                      service: sts
                expect: { body: { $: { matches: "user/\(MotoServer.userName)" } } }
            """
        let inputs: [String: Value] = ["key_id": .string(moto.accessKeyID), "secret": .string(moto.secretAccessKey)]
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(yaml, over: transport, inputs: inputs)
            for step in ["bucket", "put", "streamed", "get", "who"] {
                #expect(result.results[step]?.state == .succeeded, "\(step): \(Self.reason(result, step))")
            }
            var wrong = inputs
            wrong["secret"] = .string(moto.secretAccessKey + "x")
            let refused = try await Self.run(yaml, over: transport, inputs: wrong)
            #expect(refused.results["bucket"]?.status == 403)
            #expect(refused.results["who"]?.status == 403)
        }
    }

    @Test(ExternalServers.needed(.httpbin), arguments: ["MD5", "SHA-256"])
    func aDigestRequestIsAnsweredWithinOneAttempt(_ algorithm: String) async throws {
        let httpbin = try await Httpbin.shared()
        let yaml = """
            reqplan: 1
            inputs:
              password: { type: string }
            steps:
              me:
                request:
                  url: \(httpbin.url)/digest-auth/auth/alice/s3cr3t/\(algorithm)
                  auth: { digest: { username: alice, password: "${{ inputs.password }}" } }
                expect: { body: { authenticated: true, user: alice } }
            """
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(yaml, over: transport, inputs: ["password": .string("s3cr3t")])
            #expect(result.results["me"]?.state == .succeeded, "\(Self.reason(result, "me"))")
            #expect(result.results["me"]?.attempts.count == 1)
            let refused = try await Self.run(yaml, over: transport, inputs: ["password": .string("s3cr3T")])
            #expect(refused.results["me"]?.status == 401)
        }
    }

    @Test func aLineBreakInASessionTokenOrDigestUserIsRefusedBeforeAnythingIsSent() async throws {
        let transport = ScriptedTestTransport()
        let yaml = """
            reqplan: 1
            inputs: { token: { type: string }, user: { type: string } }
            defaults: { base_url: "http://test" }
            steps:
              signed:
                request:
                  url: /a
                  auth:
                    aws_sigv4:
                      { access_key_id: AKID, secret_access_key: s, session_token: "${{ inputs.token }}", region: r, service: s3 }
              digest:
                request: { url: /b, auth: { digest: { username: "${{ inputs.user }}", password: p } } }
            """
        let result = try await Self.run(
            yaml, over: transport, inputs: ["token": .string("a\r\nX-Injected: 1"), "user": .string("ada\nX: 1")])
        for step in ["signed", "digest"] {
            #expect(result.results[step]?.reason?.kind == .invalidHeader, "\(step): \(Self.reason(result, step))")
        }
        #expect(transport.requests.isEmpty)
    }
}
