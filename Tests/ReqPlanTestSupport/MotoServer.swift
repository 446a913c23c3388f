import Foundation

/// moto (PyPI `moto[server]`), the AWS mock botocore's users test against, as a server on loopback with its
/// IAM authentication on: every request must carry a Signature Version 4 that moto recomputes with botocore
/// from the secret of an access key it issued, and a wrong one gets `403 SignatureDoesNotMatch`.
///
/// Started with `INITIAL_NO_AUTH_ACTION_COUNT=0`, so no request is let through unchecked. An access key
/// needs an IAM user, so the start makes one as moto's documentation says (`set_initial_no_auth_action_count`
/// in server mode): `POST /moto-api/reset-auth` with `3` lets the next three actions through, and boto3
/// spends them on `CreateUser`, `PutUserPolicy` (every action on every resource) and `CreateAccessKey`. From
/// then on moto checks every signature and every permission; `accessKeyID` and `secretAccessKey` are that
/// key. The account is moto's default, `123456789012`.
public final class MotoServer: Sendable {
    public let process: ServerProcess
    public let port: Int
    /// The IAM user's access key id (`AKIA…`).
    public let accessKeyID: String
    /// The IAM user's secret access key.
    public let secretAccessKey: String
    /// The IAM user's name.
    public static let userName = "reqplan"

    /// `http://127.0.0.1:<port>`
    public var url: String { "http://127.0.0.1:\(port)" }

    private static let started = SharedResource<MotoServer> { try await MotoServer.start() }

    /// The process's moto, started on the first call.
    public static func shared() async throws -> MotoServer {
        try await started.value()
    }

    /// Starts a new moto server and makes its IAM user and access key.
    /// - Throws: `ServerError` when moto is missing, does not listen, or the user cannot be made.
    public static func start() async throws -> MotoServer {
        try ExternalServers.require(.moto)
        guard let python = ExternalServers.executable("python3") else { throw ServerError("python3 is not installed") }
        let (process, port) = try await startWithFreePorts(1) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("moto")
            let process = try await ServerProcess.start(
                name: "moto", program: "/usr/bin/env",
                arguments: [
                    "INITIAL_NO_AUTH_ACTION_COUNT=0", python, "-m", "moto.server", "-H", "127.0.0.1",
                    "-p", String(ports[0]),
                ],
                folder: folder, ports: ports, limit: .seconds(60))
            return (process, ports[0])
        }
        do {
            let made = try runCommand("python3", ["-c", bootstrap, "http://127.0.0.1:\(port)", userName])
            let lines = made.output.split(separator: "\n").map(String.init)
            guard made.status == 0, let last = lines.last, last.hasPrefix("KEY ") else {
                throw ServerError("moto's IAM user could not be made: \(made.output) (moto said: \(process.console))")
            }
            let parts = last.split(separator: " ").map(String.init)
            guard parts.count == 3 else { throw ServerError("moto's access key is not `KEY id secret`: \(last)") }
            return MotoServer(process: process, port: port, accessKeyID: parts[1], secretAccessKey: parts[2])
        } catch {
            process.stop()
            throw error
        }
    }

    /// Python run once at the start (arguments: moto's URL, the user's name): lets three actions through
    /// unchecked, spends them on the user, its policy and its access key, and prints `KEY <id> <secret>`.
    private static let bootstrap = """
        import json, sys, urllib.request
        import boto3
        url, user = sys.argv[1], sys.argv[2]
        reset = urllib.request.Request(
            url + "/moto-api/reset-auth", data=b"3", method="POST", headers={"Content-Type": "text/plain"})
        urllib.request.urlopen(reset).read()
        iam = boto3.client(
            "iam", endpoint_url=url, region_name="us-east-1",
            aws_access_key_id="AKIAIOSFODNN7EXAMPLE", aws_secret_access_key="bootstrap")
        iam.create_user(UserName=user)
        policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
        iam.put_user_policy(UserName=user, PolicyName="everything", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=user)["AccessKey"]
        print("KEY", key["AccessKeyId"], key["SecretAccessKey"])
        """

    private init(process: ServerProcess, port: Int, accessKeyID: String, secretAccessKey: String) {
        self.process = process
        self.port = port
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    /// Stops it.
    public func stop() { process.stop() }
}
