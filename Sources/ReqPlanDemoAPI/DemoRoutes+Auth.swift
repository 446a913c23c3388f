import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension DemoRoutes {
    /// Endpoints behind credentials, and pages that are not JSON (for `auth:`, `match()` and `xpath()`):
    ///
    /// | Endpoint | Answer |
    /// |---|---|
    /// | `GET /basic-auth/{user}/{password}` | 200 `{"authenticated": true, "user"}` for `Authorization: Basic` with that user and password; 401 with `WWW-Authenticate: Basic` otherwise |
    /// | `GET /bearer` | 200 `{"authenticated": true, "user"}` for `Authorization: Bearer` with a token `POST /login` gave; 401 with `WWW-Authenticate: Bearer` otherwise |
    /// | `GET /account.xml` | the session's account as XML (`<account user="…"><plan>…</plan><quota used="…" limit="…"/></account>`); 401 without a session |
    /// | `GET /login-form?user=U` | an HTML login form whose hidden `csrf` input carries a token for `U` |
    /// | `POST /login-form` | a form body with `user` and `csrf`: 200 `{"token", "user"}` when the token is `user`'s, 403 otherwise |
    func registerAuth(on router: Router<DemoContext>) {
        router.get("/basic-auth/{user}/{password}") { request, context in
            let user = try Self.parameter(context, "user")
            let password = try Self.parameter(context, "password")
            guard Self.basicCredentials(of: request).map({ $0 == (user, password) }) == true else {
                return Self.error(
                    .unauthorized, "basic credentials for `\(user)` are required",
                    headers: [.wwwAuthenticate: "Basic realm=\"reqplan demo\""])
            }
            return Self.json(["authenticated": true, "user": .string(user)])
        }

        router.get("/bearer") { request, _ in
            guard let user = sessionUser(of: request) else {
                return Self.error(
                    .unauthorized, "a bearer token from POST /login is required",
                    headers: [.wwwAuthenticate: "Bearer realm=\"reqplan demo\""])
            }
            return Self.json(["authenticated": true, "user": .string(user)])
        }

        router.get("/account.xml") { request, _ in
            guard let user = sessionUser(of: request) else {
                return Self.error(
                    .unauthorized, "a bearer token from POST /login is required",
                    headers: [.wwwAuthenticate: "Bearer realm=\"reqplan demo\""])
            }
            let profile = DemoUser.named(user)
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <account user="\(Self.escapeXML(profile.name))">
                  <name>\(Self.escapeXML(profile.displayName))</name>
                  <plan>pro</plan>
                  <quota used="3" limit="10"/>
                </account>
                """
            return Response(
                status: .ok, headers: [.contentType: "application/xml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: xml)))
        }

        router.get("/login-form") { request, _ in
            let user = Self.queryValue(request, "user") ?? "guest"
            let html = """
                <!DOCTYPE html>
                <html><head><title>Log in</title></head>
                <body>
                  <form method="post" action="/login-form">
                    <input type="hidden" name="csrf" value="\(Self.csrfToken(for: user))">
                    <input name="user" value="\(Self.escapeXML(user))">
                    <button type=submit>Log in</button>
                  </form>
                </body></html>
                """
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: html)))
        }

        router.post("/login-form") { request, _ in
            let body = try await Self.bodyValue(of: request) ?? .object([])
            guard let user = body["user"]?.string, !user.isEmpty, user.count <= 64 else {
                throw HTTPError(.badRequest, message: "`user` is required (1 to 64 characters)")
            }
            guard body["csrf"]?.string == Self.csrfToken(for: user) else {
                return Self.error(.forbidden, "the CSRF token is missing or not the one the form gave")
            }
            let profile = DemoUser.named(user)
            state.storage.withLock { $0.sessions[profile.token] = profile.name }
            return Self.json(["token": .string(profile.token), "user": .string(profile.name)])
        }
    }

    /// The user and password of `Authorization: Basic …`, if the request has one.
    static func basicCredentials(of request: Request) -> (String, String)? {
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("basic "),
            let data = Data(
                base64Encoded: String(authorization.dropFirst("basic ".count)).trimmingCharacters(in: .whitespaces)),
            let pair = String(data: data, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        else { return nil }
        return (String(pair[..<colon]), String(pair[pair.index(after: colon)...]))
    }

    /// The form's CSRF token for `user`: derived from the name, so the demo keeps no state for it.
    static func csrfToken(for user: String) -> String {
        var hash: UInt64 = 0x84222325_cbf29ce4  // FNV-1a, 64 bits, another offset than the session tokens'
        for byte in ("csrf:" + user).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "csrf-" + String(hash, radix: 16)
    }

    /// Text escaped for XML and HTML content and quoted attributes.
    static func escapeXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
