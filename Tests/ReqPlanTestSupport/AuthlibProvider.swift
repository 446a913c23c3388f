import Foundation

/// An OAuth 2.0 authorization server made with Authlib (PyPI), on loopback: the test of `private_key_jwt` client
/// authentication (RFC 7523), which django-oauth-toolkit does not take. Authlib checks each client assertion: its
/// signature against the public key the client registered, its claims (`iss` = `sub` = the client id, `aud` =
/// the token endpoint, `exp`), and that its `jti` was not used before. The server is Authlib's
/// `AuthorizationServer` with its client-credentials grant; only the storage (a dictionary) is written here.
///
/// Clients `rsa-client` (RSA, 2,048 bits) and `ec-client` (EC P-256) registered their public keys; their private
/// keys are in `privateKey(of:)`, and `privateKey(of: "stranger")` is a key no client registered. `url +
/// "/api/me"` needs a token with the `read` scope. Each request it answers is a line of its log.
public final class AuthlibProvider: Sendable {
    public let process: ServerProcess
    public let port: Int
    let folder: URL

    /// `http://127.0.0.1:<port>`
    public var url: String { "http://127.0.0.1:\(port)" }
    /// The token endpoint.
    public var tokenURL: String { url + "/token" }
    /// The resource it protects.
    public var resourceURL: String { url + "/api/me" }

    /// Starts a provider whose tokens live `tokenLifetime` seconds.
    public static func start(tokenLifetime: Int = 300) async throws -> AuthlibProvider {
        try ExternalServers.require(.authlib)
        guard let python = ExternalServers.executable("python3") else { throw ServerError("python3 is not installed") }
        return try await startWithFreePorts(1) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("authlib-provider")
            try Self.serve.write(to: folder.appendingPathComponent("serve.py"), atomically: true, encoding: .utf8)
            let process = try await ServerProcess.start(
                name: "authlib", program: python,
                arguments: [
                    "-W", "ignore", folder.appendingPathComponent("serve.py").path, String(ports[0]),
                    String(tokenLifetime),
                ],
                folder: folder, ports: ports, limit: .seconds(60))
            return AuthlibProvider(process: process, port: ports[0], folder: folder)
        }
    }

    private init(process: ServerProcess, port: Int, folder: URL) {
        self.process = process
        self.port = port
        self.folder = folder
    }

    /// Stops it.
    public func stop() { process.stop() }

    /// The PEM private key of a client (`rsa-client`, `ec-client`), or of `stranger`.
    public func privateKey(of client: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(client + ".pem"), encoding: .utf8)
    }

    /// Every access token it granted, and every client assertion it was sent, so far.
    public var granted: (tokens: [String], assertions: [String]) {
        func lines(_ name: String) -> [String] {
            let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        return (lines("tokens.log"), lines("assertions.log"))
    }

    /// What it logged so far: a line per request it answered.
    public var log: String { (try? String(contentsOf: process.consoleLog, encoding: .utf8)) ?? "" }

    private static let serve = #"""
        # An OAuth 2.0 authorization server made with Authlib (PyPI), for reqplan's tests of `private_key_jwt` (RFC 7523
        # client assertions): Authlib checks each assertion's signature against the client's public key, its claims
        # (iss = sub = client id, aud = this token endpoint, exp) and that its jti was not used before.
        import os, sys, threading, time
        from flask import Flask, jsonify
        from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector, current_token
        from authlib.oauth2.rfc6749 import grants, ClientMixin, TokenMixin
        from authlib.oauth2.rfc6750 import BearerTokenValidator
        from authlib.oauth2.rfc7523 import JWTBearerClientAssertion
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa, ec

        here = os.path.dirname(os.path.abspath(__file__))
        port = int(sys.argv[1])
        lifetime = int(sys.argv[2]) if len(sys.argv) > 2 else 300
        token_url = "http://127.0.0.1:%d/token" % port
        lock = threading.Lock()

        def private_pem(key):
            return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()).decode()

        def public_pem(key):
            return key.public_key().public_bytes(serialization.Encoding.PEM,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo).decode()

        # Each client's key pair: the server keeps the public key; the private key is written for the test, as a client
        # would keep it. `stranger.pem` is a key no client registered.
        keys = {"rsa-client": rsa.generate_private_key(public_exponent=65537, key_size=2048),
                "ec-client": ec.generate_private_key(ec.SECP256R1())}
        for name, key in list(keys.items()) + [("stranger", rsa.generate_private_key(public_exponent=65537, key_size=2048))]:
            with open(os.path.join(here, name + ".pem"), "w") as f:
                f.write(private_pem(key))

        class Client(ClientMixin):
            def __init__(self, client_id, public_key):
                self.client_id, self.public_key = client_id, public_key
            def get_client_id(self): return self.client_id
            def get_default_redirect_uri(self): return None
            def get_allowed_scope(self, scope):
                return " ".join(s for s in (scope or "").split() if s in ("read", "write"))
            def check_redirect_uri(self, redirect_uri): return False
            def check_client_secret(self, client_secret): return False
            def check_endpoint_auth_method(self, method, endpoint): return method == "private_key_jwt"
            def check_response_type(self, response_type): return False
            def check_grant_type(self, grant_type): return grant_type == "client_credentials"

        clients = {name: Client(name, public_pem(key)) for name, key in keys.items()}

        class Token(TokenMixin):
            def __init__(self, client_id, scope, expires_at):
                self.client_id, self.scope, self.expires_at = client_id, scope, expires_at
            def check_client(self, client): return client.get_client_id() == self.client_id
            def get_scope(self): return self.scope
            def get_expires_in(self): return int(self.expires_at - time.time())
            def is_expired(self): return time.time() >= self.expires_at
            def is_revoked(self): return False

        tokens = {}
        used_jtis = set()

        def save_token(token, request):
            with lock:
                with open(os.path.join(here, "tokens.log"), "a") as f:
                    f.write(token["access_token"] + "\n")
                tokens[token["access_token"]] = Token(request.client.client_id, token.get("scope", ""),
                                                      time.time() + token["expires_in"])

        class PrivateKeyJWT(JWTBearerClientAssertion):
            CLIENT_AUTH_METHOD = "private_key_jwt"
            def __call__(self, query_client, request):
                with lock:
                    with open(os.path.join(here, "assertions.log"), "a") as f:
                        f.write(request.form.get("client_assertion", "") + "\n")
                return super().__call__(query_client, request)
            def get_audiences(self): return [token_url]
            def validate_jti(self, claims, jti):
                with lock:
                    if jti in used_jtis:
                        return False
                    used_jtis.add(jti)
                    return True
            def resolve_client_public_key(self, client): return client.public_key

        class Validator(BearerTokenValidator):
            def authenticate_token(self, token_string):
                with lock:
                    return tokens.get(token_string)

        app = Flask(__name__)
        app.config["OAUTH2_TOKEN_EXPIRES_IN"] = {"client_credentials": lifetime}
        server = AuthorizationServer(app, query_client=clients.get, save_token=save_token)
        class ClientCredentialsGrant(grants.ClientCredentialsGrant):
            TOKEN_ENDPOINT_AUTH_METHODS = ["private_key_jwt"]

        server.register_grant(ClientCredentialsGrant)
        server.register_client_auth_method(PrivateKeyJWT.CLIENT_AUTH_METHOD, PrivateKeyJWT())
        protect = ResourceProtector()
        protect.register_token_validator(Validator())

        @app.route("/token", methods=["POST"])
        def issue_token():
            return server.create_token_response()

        @app.route("/api/me")
        @protect("read")
        def me():
            return jsonify(client=current_token.client_id)

        app.run(host="127.0.0.1", port=port, threaded=True)
        """#
}
