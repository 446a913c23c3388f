import Foundation

/// PyPI `connexion` serving an OpenAPI 3.0 description's examples (`connexion run FILE --mock=all`) on
/// loopback: a mock of an API that nobody here wrote, for running Arazzo workflows against.
///
/// connexion's mock answers only operations it can serve without help, so it is given a copy of the
/// description with two changes made by `python3` (PyYAML), the description's own text otherwise: no
/// `security` requirements (connexion refuses a request whose credentials no handler checks) and, where a
/// response has several content types, only `application/json` (its mock cannot choose one).
public final class ConnexionMock: Sendable {
    public let process: ServerProcess
    public let port: Int

    /// `http://127.0.0.1:<port>`: the description's paths are served below it.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The copy of the description connexion serves, changed as the type's documentation says.
    static let derive = """
        import sys, yaml
        document = yaml.safe_load(open(sys.argv[1]))
        document.pop('security', None)
        for item in document.get('paths', {}).values():
            for operation in item.values():
                if not isinstance(operation, dict):
                    continue
                operation.pop('security', None)
                for response in operation.get('responses', {}).values():
                    content = response.get('content')
                    if content and 'application/json' in content:
                        response['content'] = {'application/json': content['application/json']}
        yaml.safe_dump(document, open(sys.argv[2], 'w'), sort_keys=False)
        """

    /// Starts connexion's mock of the OpenAPI description at `description`.
    public static func start(serving description: URL) async throws -> ConnexionMock {
        try ExternalServers.require(.connexion)
        guard let python = ExternalServers.executable("python3") else { throw ServerError("python3 is not installed") }
        let folder = try ExternalServers.makeTemporaryFolder("connexion")
        let copy = folder.appendingPathComponent("openapi.yaml")
        let derived = try runCommand(python, ["-c", derive, description.path, copy.path])
        guard derived.status == 0 else { throw ServerError("could not copy \(description.path): \(derived.output)") }
        let ports = try ExternalServers.freePorts(1)
        let process = try await ServerProcess.start(
            name: "connexion", program: python,
            arguments: [
                "-m", "connexion", "run", copy.path, "--mock=all", "--host", "127.0.0.1", "--port", String(ports[0]),
            ],
            folder: folder, ports: ports, limit: .seconds(60))
        return ConnexionMock(process: process, port: ports[0])
    }

    private init(process: ServerProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// Stops it.
    public func stop() { process.stop() }
}
