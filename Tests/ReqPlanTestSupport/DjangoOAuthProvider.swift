import Foundation

/// django-oauth-toolkit (PyPI) on loopback: a real OAuth 2.0 and OpenID Connect provider, in a Django project
/// of its own (SQLite in a temporary folder), with the test clients and a user registered before it serves. Its
/// token endpoint is `url + "/o/token/"`; access tokens live `tokenLifetime` seconds. `url + "/api/me"` is a
/// resource it protects with its own Django REST framework authentication (a token with the `read` scope;
/// a missing, expired or revoked one gets 401 with `WWW-Authenticate: Bearer … error="invalid_token"`). Each
/// request it answers is a line of its log (`"POST /o/token/ HTTP/1.1" 200`), which tests count.
public final class DjangoOAuthProvider: Sendable {
    public let process: ServerProcess
    public let port: Int
    /// How long an access token lives, in seconds.
    public let tokenLifetime: Int

    /// `http://127.0.0.1:<port>`
    public var url: String { "http://127.0.0.1:\(port)" }
    /// The token endpoint.
    public var tokenURL: String { url + "/o/token/" }

    /// A confidential client of the client-credentials grant whose id and secret need encoding (a space, a
    /// colon, a percent sign and a letter outside ASCII), as RFC 6749 section 2.3.1 has them encoded.
    public static let awkwardClient = (id: "my client:1", secret: "s3cr%t é")
    /// A confidential client of the (legacy) password grant, whose tokens come with refresh tokens.
    public static let passwordClient = (id: "password-client", secret: "password-client-secret-9f2c")
    /// The user of the password grant.
    public static let user = (name: "alice", password: "alice-password-71d0")
    /// A public client of the authorization-code grant (no secret; PKCE, which django-oauth-toolkit requires),
    /// whose redirect URI is registered without a port: any loopback port is taken (RFC 8252 §7.3).
    public static let publicCodeClient = (id: "reqplan-cli", redirectURI: "http://127.0.0.1/callback")
    /// A confidential client of the authorization-code grant, with the same redirect URI.
    public static let confidentialCodeClient = (id: "reqplan-web", secret: "code-client-secret-4e1b")

    /// Its authorization endpoint, behind its sign-in page (`/accounts/login/`, Django's `LoginView`): the
    /// consent page has a Cancel button and an Authorize one (`name="allow"`).
    public var authorizationURL: String { url + "/o/authorize/" }

    /// Its OpenID Connect issuer: the discovery document is at `issuer + "/.well-known/openid-configuration"`.
    public var issuer: String { url + "/o" }

    /// The resource it protects.
    public var resourceURL: String { url + "/api/me" }
    /// Its revocation endpoint (RFC 7009).
    public var revocationURL: String { url + "/o/revoke_token/" }

    /// Starts a provider whose tokens live `tokenLifetime` seconds.
    public static func start(tokenLifetime: Int = 300) async throws -> DjangoOAuthProvider {
        try ExternalServers.require(.oauthProvider)
        guard let python = ExternalServers.executable("python3") else { throw ServerError("python3 is not installed") }
        return try await startWithFreePorts(1) { ports in
            let folder = try ExternalServers.makeTemporaryFolder("oauth-provider")
            try Self.settings(database: folder.appendingPathComponent("db.sqlite3").path, lifetime: tokenLifetime)
                .write(to: folder.appendingPathComponent("settings.py"), atomically: true, encoding: .utf8)
            try Self.serve.write(to: folder.appendingPathComponent("serve.py"), atomically: true, encoding: .utf8)
            try Self.urls.write(to: folder.appendingPathComponent("urls.py"), atomically: true, encoding: .utf8)
            let registration = folder.appendingPathComponent("registration")
            try FileManager.default.createDirectory(at: registration, withIntermediateDirectories: true)
            try Self.loginPage.write(
                to: registration.appendingPathComponent("login.html"), atomically: true, encoding: .utf8)
            let process = try await ServerProcess.start(
                name: "django-oauth-toolkit", program: python,
                arguments: [folder.appendingPathComponent("serve.py").path, String(ports[0])],
                folder: folder, ports: ports, limit: .seconds(120))
            return DjangoOAuthProvider(process: process, port: ports[0], tokenLifetime: tokenLifetime)
        }
    }

    private init(process: ServerProcess, port: Int, tokenLifetime: Int) {
        self.process = process
        self.port = port
        self.tokenLifetime = tokenLifetime
    }

    /// Stops it.
    public func stop() { process.stop() }

    /// What it logged so far: a line per request it answered.
    public var log: String { (try? String(contentsOf: process.consoleLog, encoding: .utf8)) ?? "" }

    /// The query of each authorization request its `/o/authorize/` was sent (`authorizations.log`), and the form
    /// of each authorization code it exchanged for a token (`exchanges.log`), a line each: what a test checks the
    /// run's outputs never show (the state, the code, the verifier).
    public func authorizationLog(_ name: String) -> [String] {
        let text = (try? String(contentsOf: process.folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    private static func settings(database: String, lifetime: Int) -> String {
        """
        SECRET_KEY = "reqplan-tests-only"
        DEBUG = False
        ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
        INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions", "oauth2_provider",
                          "rest_framework"]
        MIDDLEWARE = ["urls.grant_log", "django.contrib.sessions.middleware.SessionMiddleware",
                      "django.contrib.auth.middleware.AuthenticationMiddleware"]
        TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates",
                      "DIRS": [\(Self.pythonString(URL(fileURLWithPath: database).deletingLastPathComponent().path))],
                      "APP_DIRS": True,
                      "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                                         "django.contrib.auth.context_processors.auth"]}}]
        LOGIN_URL = "/accounts/login/"
        ROOT_URLCONF = "urls"
        DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": \(Self.pythonString(database))}}
        USE_TZ = True
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        _key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        OAUTH2_PROVIDER = {"ACCESS_TOKEN_EXPIRE_SECONDS": \(lifetime), "OIDC_ENABLED": True, "OIDC_RSA_PRIVATE_KEY": _key,
                           "SCOPES": {"openid": "OpenID Connect", "read": "Read", "write": "Write"}}
        LOGGING = {"version": 1, "handlers": {"console": {"class": "logging.StreamHandler"}},
                   "loggers": {"django.server": {"handlers": ["console"], "level": "INFO"}}}
        """
    }

    /// The provider's endpoints under `/o/`, and `/api/me`, which its Django REST framework authentication
    /// protects (a token with the `read` scope). A middleware writes the `grant_type` of each token granted to
    /// `grants.log`, a line each.
    private static let urls = #"""
        import os
        from urllib.parse import parse_qs
        from django.urls import include, path
        from rest_framework.views import APIView
        from rest_framework.response import Response
        from oauth2_provider.contrib.rest_framework import OAuth2Authentication, TokenHasScope

        class Me(APIView):
            authentication_classes = [OAuth2Authentication]
            permission_classes = [TokenHasScope]
            required_scopes = ["read"]

            def get(self, request):
                user = request.auth.user
                return Response({"client": request.auth.application.client_id, "user": user.username if user else None})

        def grant_log(get_response):
            def middleware(request):
                body = request.body if request.method == "POST" else b""
                response = get_response(request)
                if request.path == "/o/token/" and response.status_code == 200:
                    grant = parse_qs(body.decode("utf-8", "replace")).get("grant_type", [""])[0]
                    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "grants.log"), "a") as f:
                        f.write(grant + "\n")
                    if grant == "authorization_code":
                        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "exchanges.log"), "a") as f:
                            f.write(body.decode("utf-8", "replace") + "\n")
                if request.path == "/o/authorize/" and request.method == "GET":
                    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "authorizations.log"), "a") as f:
                        f.write(request.META.get("QUERY_STRING", "") + "\n")
                return response
            return middleware

        from django.contrib.auth.views import LoginView
        urlpatterns = [path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")), path("api/me", Me.as_view()),
                       path("accounts/login/", LoginView.as_view())]
        """#

    /// Django's `LoginView`'s page (`registration/login.html`): the user's name and password, and where to go next.
    private static let loginPage = """
        <!doctype html>
        <html><head><title>Sign in</title></head><body>
        <form method="post" id="login">{% csrf_token %}{{ form.as_p }}
        <input type="hidden" name="next" value="{{ next }}"><button type="submit" id="sign-in">Sign in</button></form>
        </body></html>
        """

    /// Migrates, registers the test clients, then serves on the port given (no reloader: one process).
    private static let serve = """
        import os, sys
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, here)
        os.environ["DJANGO_SETTINGS_MODULE"] = "settings"
        import django
        django.setup()
        from django.core.management import call_command
        call_command("migrate", verbosity=0)
        from oauth2_provider.models import Application
        Application.objects.create(
            name="awkward", client_id=\(pythonString(awkwardClient.id)), client_secret=\(pythonString(awkwardClient.secret)),
            client_type=Application.CLIENT_CONFIDENTIAL, authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS)
        from django.contrib.auth.models import User
        User.objects.create_user(\(pythonString(user.name)), password=\(pythonString(user.password)))
        Application.objects.create(
            name="password", client_id=\(pythonString(passwordClient.id)), client_secret=\(pythonString(passwordClient.secret)),
            client_type=Application.CLIENT_CONFIDENTIAL, authorization_grant_type=Application.GRANT_PASSWORD)
        Application.objects.create(
            name="reqplan cli", client_id=\(pythonString(publicCodeClient.id)), client_type=Application.CLIENT_PUBLIC,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE, redirect_uris=\(pythonString(publicCodeClient.redirectURI)))
        Application.objects.create(
            name="reqplan web", client_id=\(pythonString(confidentialCodeClient.id)),
            client_secret=\(pythonString(confidentialCodeClient.secret)), client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE, redirect_uris=\(pythonString(publicCodeClient.redirectURI)))
        # Django's development server listens with a backlog of 10: the tests open up to 64 connections at
        # once, and each connection beyond the backlog waited for the kernel to resend its SYN (1 s, then 3 s,
        # 7 s, 15 s), past the client's 10 s connect timeout on a loaded machine. A production server's backlog.
        from django.core.servers import basehttp
        basehttp.WSGIServer.request_queue_size = 1024
        call_command("runserver", "127.0.0.1:" + sys.argv[1], use_reloader=False, use_threading=True)
        """

    /// `text` as a Python string literal.
    private static func pythonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes  // `\/` is not an escape in Python
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
