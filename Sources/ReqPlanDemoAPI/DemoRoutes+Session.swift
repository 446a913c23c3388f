import Foundation
import HTTPTypes
import Hummingbird

/// A demo user's profile and preferences.
struct DemoUser: Sendable {
    /// The login name.
    var name: String
    /// The name shown on screen.
    var displayName: String
    /// `light`, `dark` or `solarized`.
    var theme: String
    /// A BCP 47 language tag.
    var language: String
    /// An IANA time zone.
    var timezone: String

    /// The users the demo knows; any other name logs in with default preferences.
    static let known: [String: DemoUser] = [
        "alice": DemoUser(
            name: "alice", displayName: "Alice Martin", theme: "dark", language: "en",
            timezone: "Europe/Paris"),
        "bob": DemoUser(
            name: "bob", displayName: "Bob Chen", theme: "light", language: "en-GB",
            timezone: "Europe/London"),
        "carol": DemoUser(
            name: "carol", displayName: "Carol Díaz", theme: "solarized", language: "es",
            timezone: "America/Mexico_City"),
    ]

    /// The profile of `name`: a known user's, or defaults.
    static func named(_ name: String) -> DemoUser {
        known[name]
            ?? DemoUser(
                name: name, displayName: name.prefix(1).uppercased() + name.dropFirst(),
                theme: "light", language: "en", timezone: "UTC")
    }

    /// The session token of this user: derived from the name, the same at every login.
    var token: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits
        for byte in ("reqplan-demo:" + name).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let slug = String(
            name.unicodeScalars.filter { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
                .prefix(16).map(Character.init))
        let hex = String(hash, radix: 16)
        return "rp." + (slug.isEmpty ? "user" : slug.lowercased()) + "." + String(repeating: "0", count: 16 - hex.count)
            + hex
    }
}

extension DemoRoutes {
    /// Sections of `GET /config?section=`.
    static let configSections = ["feature-flags", "limits"]
    /// Features the demo server has (`GET /config`).
    static let features = ["import", "uploads", "notifications", "dark-mode"]
    /// Server limits (`GET /config`).
    static let limits: JSON = [
        "max_body_bytes": .int(maximumBodySize), "max_upload_bytes": .int(maximumUploadSize), "page_size": 50,
    ]

    /// Index, health, login and logout, configuration, preferences and the home screen.
    func registerSession(on router: Router<DemoContext>) {
        /// `GET /` — what the demo API serves.
        router.get("/") { _, _ in
            Self.json([
                "name": "reqplan demo API",
                "endpoints": .strings([
                    "POST /login", "POST /logout", "GET /config", "GET /users/{user}/preferences", "GET /home",
                    "GET|POST /items", "GET|PUT|PATCH|DELETE /items/{id}", "POST /cart", "GET|PUT /cart/{id}",
                    "POST /cart/{id}/order", "POST /upload", "GET /files/{id}/{name}", "GET /health",
                    "GET /delay/{ms}", "ANY /status/{code}", "ANY /flaky/{id}?fail=N", "GET /reset",
                    "GET /slow-body", "GET /connection/{ms}", "GET /close-next", "ANY /redirect-to?url=U&status=S",
                    "GET /redirect-loop", "GET /huge?mb=N", "GET /invalid-json", "ANY /echo",
                    "GET /stream?kb=N", "GET /bad-gzip",
                    "GET /basic-auth/{user}/{password}", "GET /bearer", "GET /account.xml", "GET|POST /login-form",
                    "GET /openapi.yaml", "GET /stock-report",
                ]),
            ])
        }

        /// `GET /health` — `{"ok": true}`.
        router.get("/health") { _, _ in Self.json(["ok": true]) }

        /// `POST /login` — a JSON or form body with `user` (and optionally `password`, `remember`);
        /// answers the user's session token, derived from the user name.
        router.post("/login") { request, _ in
            let body = try await Self.bodyValue(of: request) ?? .object([])
            guard body.members != nil else {
                throw HTTPError(.badRequest, message: "expected an object with `user`")
            }
            guard let name = body["user"]?.scalarText?.trimmingCharacters(in: .whitespaces), !name.isEmpty,
                name.count <= 64
            else { throw HTTPError(.badRequest, message: "`user` is required (1 to 64 characters)") }
            if let password = body["password"], password != .null, password.string == nil {
                throw HTTPError(.badRequest, message: "`password` must be a string")
            }
            let remember = body["remember"] == .bool(true) || body["remember"]?.string == "true"
            let user = DemoUser.named(name)
            let token = user.token
            state.storage.withLock { $0.sessions[token] = user.name }
            return Self.json([
                "token": .string(token), "token_type": "Bearer", "expires_in": .int(remember ? 30 * 86_400 : 3_600),
                "user": ["name": .string(user.name), "display_name": .string(user.displayName), "role": "member"],
            ])
        }

        /// `POST /logout` — ends the session of `Authorization: Bearer …` or `X-Session`;
        /// 200 either way, `logged_out` says whether there was one.
        router.post("/logout") { request, _ in
            let token = Self.sessionToken(of: request)
            let user = token.flatMap { token in state.storage.withLock { $0.sessions.removeValue(forKey: token) } }
            return Self.json(["logged_out": .bool(user != nil), "user": .optional(user)])
        }

        /// `GET /config` — version, `maintenance` flag, `features` list, limits and the caller's session;
        /// `?section=feature-flags|limits` answers one section.
        router.get("/config") { request, _ in
            let session = sessionUser(of: request)
            switch Self.queryValue(request, "section") {
            case nil:
                return Self.json([
                    "version": "2.4.1", "maintenance": false, "features": .strings(Self.features),
                    "limits": Self.limits, "session": session.map { ["user": .string($0)] } ?? .null,
                ])
            case "feature-flags":
                let flags =
                    Self.features.map { JSON.Field($0, true) }
                    + [JSON.Field("new-checkout", false)]
                return Self.json(["section": "feature-flags", "flags": .object(flags)])
            case "limits":
                return Self.json(["section": "limits", "limits": Self.limits])
            case let section?:
                throw HTTPError(
                    .notFound,
                    message: "unknown config section `\(section)`; try "
                        + Self.configSections.joined(separator: ", "))
            }
        }

        /// `GET /users/{user}/preferences` — the user's theme, language, time zone and notification settings.
        router.get("/users/{user}/preferences") { _, context in
            let user = DemoUser.named(try Self.parameter(context, "user"))
            return Self.json([
                "user": .string(user.name), "theme": .string(user.theme), "language": .string(user.language),
                "timezone": .string(user.timezone), "notifications": ["email": true, "push": false],
            ])
        }

        /// `GET /home` — the home screen: `?theme=` (else the user's), `?unread=` (else counted),
        /// `?mode=normal|degraded`, `?banner=maintenance`.
        router.get("/home") { request, _ in
            let user = sessionUser(of: request)
            let mode = Self.queryValue(request, "mode") ?? "normal"
            guard mode == "normal" || mode == "degraded" else {
                throw HTTPError(.badRequest, message: "`mode` must be `normal` or `degraded`")
            }
            let unread =
                try Self.queryInteger(request, "unread", in: 0...1_000_000)
                ?? state.storage.withLock { store in
                    store.allItems.filter { $0["unread"] == .bool(true) }.count
                }
            let banner: JSON =
                switch Self.queryValue(request, "banner") {
                case nil: .null
                case "maintenance": "Scheduled maintenance in progress: some features are unavailable."
                case let other?: .string(other)
                }
            let widgets = mode == "degraded" ? ["profile", "inbox"] : ["profile", "inbox", "recommendations"]
            return Self.json([
                "screen": "home", "user": .optional(user), "mode": .string(mode),
                "theme": .string(Self.queryValue(request, "theme") ?? user.map { DemoUser.named($0).theme } ?? "light"),
                "unread": .int(unread), "banner": banner, "widgets": .strings(widgets),
            ])
        }
    }
}
