import Foundation

/// PyPI `connexion` serving an OpenAPI 3.0 description's examples (`connexion run FILE --mock=all`) on
/// loopback: a mock of an API that nobody here wrote, for running Arazzo workflows against.
///
/// connexion's mock answers only operations it can serve without help, so it is given a copy of the
/// description with two changes made by `python3` (PyYAML), the description's own text otherwise: no
/// `security` requirements (connexion refuses a request whose credentials no handler checks) and, where a
/// response has several content types, only `application/json` (its mock cannot choose one).
///
/// `checkingCredentials` keeps the `security` requirements instead, and names a handler for each `apiKey`,
/// `http` bearer and basic scheme (`x-apikeyInfoFunc`, `x-bearerInfoFunc`, `x-basicInfoFunc`): connexion then
/// takes each credential from where the scheme says (a header, the query, a cookie, `Authorization`) and
/// refuses a request without the right one with 401. The handlers accept `validKey`, `validToken` and
/// `validUser`.
public final class ConnexionMock: Sendable {
    public let process: ServerProcess
    public let port: Int

    /// `http://127.0.0.1:<port>`: the description's paths are served below it.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The copy of the description connexion serves, changed as the type's documentation says.
    static let derive = """
        import sys, yaml
        document = yaml.safe_load(open(sys.argv[1]))
        checking = len(sys.argv) > 3 and sys.argv[3] == 'check'
        if checking:
            for scheme in document.get('components', {}).get('securitySchemes', {}).values():
                if scheme.get('type') == 'apiKey':
                    scheme['x-apikeyInfoFunc'] = 'credential_handlers.check_key'
                elif scheme.get('type') == 'http' and scheme.get('scheme', '').lower() == 'bearer':
                    scheme['x-bearerInfoFunc'] = 'credential_handlers.check_token'
                elif scheme.get('type') == 'http' and scheme.get('scheme', '').lower() == 'basic':
                    scheme['x-basicInfoFunc'] = 'credential_handlers.check_user'
                elif scheme.get('type') == 'oauth2':
                    scheme['x-tokenInfoFunc'] = 'credential_handlers.check_token'
        else:
            document.pop('security', None)
        for item in document.get('paths', {}).values():
            for operation in item.values():
                if not isinstance(operation, dict):
                    continue
                if not checking:
                    operation.pop('security', None)
                for response in operation.get('responses', {}).values():
                    content = response.get('content')
                    if content and 'application/json' in content:
                        response['content'] = {'application/json': content['application/json']}
        yaml.safe_dump(document, open(sys.argv[2], 'w'), sort_keys=False)
        """

    /// The API key, bearer token and user (`user:password`) the handlers accept with `checkingCredentials`.
    public static let validKey = "key-7f3a9c21"
    public static let validToken = "token-5d8e0b44"
    public static let validUser = (name: "ada", password: "ada-pass-61f2")

    /// The handlers connexion calls to check each credential (`checkingCredentials`).
    static let handlers = """
        def check_key(key, required_scopes=None):
            return {"sub": "key"} if key == \(pythonString(validKey)) else None

        def check_token(token, required_scopes=None):
            return {"sub": "token", "scope": required_scopes or []} if token == \(pythonString(validToken)) else None

        def check_user(username, password, required_scopes=None):
            ok = (username, password) == (\(pythonString(validUser.name)), \(pythonString(validUser.password)))
            return {"sub": username} if ok else None
        """

    private static func pythonString(_ text: String) -> String { "'" + text + "'" }

    /// Starts connexion's mock of the OpenAPI description at `description`; with `checkingCredentials`, one
    /// that checks the credentials its `security` asks for.
    public static func start(serving description: URL, checkingCredentials: Bool = false) async throws -> ConnexionMock
    {
        try ExternalServers.require(.connexion)
        guard let python = ExternalServers.executable("python3") else { throw ServerError("python3 is not installed") }
        let folder = try ExternalServers.makeTemporaryFolder("connexion")
        let copy = folder.appendingPathComponent("openapi.yaml")
        try handlers.write(
            to: folder.appendingPathComponent("credential_handlers.py"), atomically: true, encoding: .utf8)
        let derived = try runCommand(
            python, ["-c", derive, description.path, copy.path] + (checkingCredentials ? ["check"] : []))
        guard derived.status == 0 else { throw ServerError("could not copy \(description.path): \(derived.output)") }
        let ports = try ExternalServers.freePorts(1)
        let process = try await ServerProcess.start(
            name: "connexion", program: "/usr/bin/env",
            arguments: [
                // The handlers' module is found in the folder.
                "PYTHONPATH=" + folder.path, python, "-m", "connexion", "run", copy.path, "--mock=all", "--host",
                "127.0.0.1", "--port", String(ports[0]),
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
