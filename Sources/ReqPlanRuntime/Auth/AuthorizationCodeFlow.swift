import Crypto
import Foundation
import ReqPlanSyntax
import ReqPlanTransport
import Synchronization

/// The `authorization_code` grant of `auth: { oauth2 }` (RFC 6749 §4.1, with PKCE, RFC 7636): where the user's
/// browser is sent, and where it comes back.
public struct AuthorizationCode: Sendable, Hashable {
    /// The authorization endpoint; nil when the issuer's discovery document names it.
    public var authorizationURL: String?
    /// The loopback port the redirect comes to; nil for one the system picks (RFC 8252 §7.3).
    public var redirectPort: Int?
    /// What the browser brought back, once it has: what the token request sends. Nil in the grant a run keeps
    /// its token under.
    public var redirect: Redirect?

    /// The code the redirect brought, the redirect URI it came to and the PKCE verifier of the request.
    public struct Redirect: Sendable, Hashable {
        public var code: String
        public var redirectURI: String
        public var codeVerifier: String

        public init(code: String, redirectURI: String, codeVerifier: String) {
            self.code = code
            self.redirectURI = redirectURI
            self.codeVerifier = codeVerifier
        }
    }

    public init(authorizationURL: String?, redirectPort: Int? = nil, redirect: Redirect? = nil) {
        self.authorizationURL = authorizationURL
        self.redirectPort = redirectPort
        self.redirect = redirect
    }
}

/// What the presentation side is asked to show when an `authorization_code` grant needs the user: the address
/// to open in a browser. It is a loopback address that sends the browser on to the authorization endpoint, so
/// that the request's `state` is in no output of the run.
public struct AuthorizationPrompt: Sendable, Hashable {
    /// `http://127.0.0.1:PORT/`: opening it starts the sign-in.
    public var url: String
    /// The authorization endpoint, without the request's parameters: where the user signs in.
    public var endpoint: String
    /// How long the run waits for the browser to come back.
    public var wait: Duration

    public init(url: String, endpoint: String, wait: Duration) {
        self.url = url
        self.endpoint = endpoint
        self.wait = wait
    }
}

/// What a run needs for the `authorization_code` grant: a listener on loopback for the redirect, and a way to
/// show the user where to sign in (the runtime prints nothing itself).
public struct AuthorizationCodeSettings: Sendable {
    /// Listens for the browser's redirect; the composition root gives one over NIO.
    public var listener: (any LoopbackListener)?
    /// Shows the user the address to open (`reqplan run` prints it, and opens it with `--open-browser`).
    public var prompt: (@Sendable (AuthorizationPrompt) -> Void)?
    /// How long the run waits for the browser to come back, from when the address is shown (5 minutes by
    /// default; `--authorization-timeout`).
    public var wait: Duration = .seconds(300)

    public init(
        listener: (any LoopbackListener)? = nil, prompt: (@Sendable (AuthorizationPrompt) -> Void)? = nil,
        wait: Duration = .seconds(300)
    ) {
        self.listener = listener
        self.prompt = prompt
        self.wait = wait
    }
}

extension AuthorizationCode {
    /// The path the redirect comes to.
    static let callbackPath = "/callback"

    /// How a request to the listener is read: the browser's redirect, with a code or an error, or anything else.
    enum Callback: Equatable {
        /// `/`: the address shown to the user, sent on to the authorization endpoint.
        case start
        case code(String)
        /// The authorization server's refusal (`error`, `error_description`), as the redirect brought it.
        case refused(error: String, description: String?)
        /// Not an answer to this request (another path or method, no `state` or another one, no code): why.
        case rejected(String)
    }

    /// What `request` is, for the authorization request whose state is `state`. A redirect is the answer only
    /// with exactly one `state`, equal to the one sent (RFC 6749 §10.12), and one `code` or one `error`.
    static func callback(_ request: LoopbackRequest, state: String) -> Callback {
        guard request.method == "GET" else { return .rejected("only GET is answered here") }
        let (path, query) = split(request.target)
        if path == "/" && query.isEmpty { return .start }
        guard path == callbackPath else { return .rejected("this is not the address the authorization comes back to") }
        let states = query.filter { $0.name == "state" }.map { $0.value }
        guard states.count == 1, constantTimeEqual(states[0], state) else {
            return .rejected("this is not the answer to reqplan's authorization request (its state does not match)")
        }
        let errors = query.filter { $0.name == "error" }.map { $0.value }
        let codes = query.filter { $0.name == "code" }.map { $0.value }
        if errors.count == 1 && codes.isEmpty {
            let descriptions = query.filter { $0.name == "error_description" }.map { $0.value }
            return .refused(error: errors[0], description: descriptions.count == 1 ? descriptions[0] : nil)
        }
        guard codes.count == 1, !codes[0].isEmpty, errors.isEmpty else {
            return .rejected("the redirect brings no code")
        }
        return .code(codes[0])
    }

    /// The path of a request target, and its query's parameters, form-decoded; nil values for malformed
    /// percent-encoding are kept as written.
    static func split(_ target: String) -> (path: String, query: [(name: String, value: String)]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "")
        guard parts.count == 2 else { return (path, []) }
        let query = parts[1].split(separator: "&").map { pair in
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring?) -> String {
                let spaced = String(text ?? "").replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (name: decode(halves.first), value: decode(halves.count == 2 ? halves[1] : nil))
        }
        return (path, query)
    }

    /// Whether `a` and `b` are equal, in a time that depends on their lengths only.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// 32 random bytes, base64url without padding (43 characters): a PKCE code verifier (RFC 7636 §4.1), or a
    /// `state`.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The S256 code challenge of `verifier` (RFC 7636 §4.2): base64url of its SHA-256, without padding.
    static func challenge(of verifier: String) -> String {
        base64URL(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        ).replacingOccurrences(of: "=", with: "")
    }

    /// The authorization request (§4.1.1, RFC 7636 §4.3): `endpoint` with the parameters added to its query.
    static func authorizationRequest(
        endpoint: String, clientID: String, redirectURI: String, scopes: [String], state: String, challenge: String
    ) -> String {
        var parameters = [("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI)]
        if !scopes.isEmpty { parameters.append(("scope", scopes.joined(separator: " "))) }
        parameters += [("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256")]
        let query = parameters.map { URLEncoding.percentEncode($0.0) + "=" + URLEncoding.percentEncode($0.1) }
            .joined(separator: "&")
        let base = endpoint.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        return (base ?? endpoint) + (endpoint.contains("?") ? "&" : "?") + query
    }

    /// A page for the browser: plain text, never cached.
    static func page(_ status: Int, _ text: String, ends: Bool = false, location: String? = nil) -> LoopbackAnswer {
        LoopbackAnswer(
            status: status, headers: location.map { [HeaderField("Location", $0)] } ?? [],
            text: "reqplan: " + text + "\n",
            ends: ends)
    }
}

extension OAuthGrant {
    /// The browser's part of the `authorization_code` grant: listens on loopback, has `settings.prompt` show the
    /// address that starts the sign-in at `endpoint`, and waits (up to `settings.wait`) for the redirect with
    /// this request's `state`. Every other request to the listener is answered 400 and the wait goes on. The
    /// state, the verifier and the code go into `secrets`.
    /// - Returns: what the token request sends: the code, the redirect URI and the verifier.
    /// - Throws: why no code came: the server's refusal (its `error`, quoted as the token endpoint's is), the
    ///   wait running out, no listener, or "cancelled".
    func authorize(
        _ grant: AuthorizationCode, at endpoint: String, settings: AuthorizationCodeSettings, secrets: SecretStore?
    ) async throws(OAuthError) -> AuthorizationCode.Redirect {
        guard let listener = settings.listener, let prompt = settings.prompt else {
            throw OAuthError(
                "the `authorization_code` grant needs a browser, and this run has no way to show the user where to "
                    + "sign in (give `RunConfiguration.authorizationCode` a listener and a prompt)")
        }
        switch Result(catching: { () throws(RequestURL.Problem) in try RequestURL(parsing: endpoint) }) {
        case .success(let url) where url.isHTTPS || url.isLoopback:
            break
        case .success:
            throw OAuthError(
                "the authorization endpoint is not over https: the user's sign-in is not sent in the clear")
        case .failure:
            throw OAuthError("the authorization endpoint is not an http(s) URL")
        }
        let state = AuthorizationCode.randomToken()
        let verifier = AuthorizationCode.randomToken()
        secrets?.add(state)
        secrets?.add(verifier)
        let challenge = AuthorizationCode.challenge(of: verifier)
        let clientID = self.clientID
        let scopes = self.scopes
        // Set once the listener has its port: the address `/` sends the browser on to.
        let request = Pending()
        let shown = endpoint.split(separator: "?", maxSplits: 1).first.map(String.init) ?? endpoint
        let wait = settings.wait
        let answer: @Sendable (LoopbackRequest) -> LoopbackAnswer = { received in
            switch AuthorizationCode.callback(received, state: state) {
            case .start:
                guard let url = request.value?.url else { return AuthorizationCode.page(400, "not ready") }
                return AuthorizationCode.page(302, "continue at \(shown)", location: url)
            case .code:
                return AuthorizationCode.page(
                    200, "the authorization was received. You may close this window and return to the terminal.",
                    ends: true)
            case .refused(let error, _):
                return AuthorizationCode.page(
                    200,
                    "the authorization was refused (\(OAuthGrant.printable(error, limit: 64))). "
                        + "You may close this window and return to the terminal.", ends: true)
            case .rejected(let why):
                return AuthorizationCode.page(400, why + ". The run is still waiting; you may close this window.")
            }
        }
        let received: LoopbackRequest
        do {
            received = try await withThrowingTaskGroup(of: LoopbackRequest?.self) { group in
                group.addTask {
                    try await listener.receive(
                        port: grant.redirectPort,
                        listening: { port in
                            let redirectURI = "http://127.0.0.1:\(port)\(AuthorizationCode.callbackPath)"
                            let url = AuthorizationCode.authorizationRequest(
                                endpoint: endpoint, clientID: clientID, redirectURI: redirectURI, scopes: scopes,
                                state: state, challenge: challenge)
                            request.value = (redirectURI, url)
                            prompt(AuthorizationPrompt(url: "http://127.0.0.1:\(port)/", endpoint: shown, wait: wait))
                        }, answer: answer)
                }
                group.addTask {
                    try await Task.sleep(for: wait)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            .unwrapped(orThrow: TimedOut())
        } catch is TimedOut {
            let address = request.value?.redirectURI ?? "the loopback listener"
            throw OAuthError(
                "no authorization came within \(PlanDuration(milliseconds: Int(wait.milliseconds))): the browser "
                    + "never came back to \(address)")
        } catch let error as TransportError where error.kind != .cancelled {
            throw OAuthError("cannot wait for the authorization: \(error.message)")
        } catch {
            throw OAuthError("cancelled")
        }
        switch AuthorizationCode.callback(received, state: state) {
        case .code(let code):
            secrets?.add(code)
            let redirectURI = request.value?.redirectURI ?? ""
            return .init(code: code, redirectURI: redirectURI, codeVerifier: verifier)
        case .refused(let error, let description):
            var reason = "the authorization was refused: \(Self.printable(error, limit: 64))"
            if let description { reason += " (\(Self.printable(description, limit: 200)))" }
            throw OAuthError(reason)
        case .start, .rejected:
            throw OAuthError("the listener ended the wait without the authorization")
        }
    }
}

/// The wait for the browser ran out.
private struct TimedOut: Error {}

/// The redirect URI and the authorization request, once the listener has its port.
private final class Pending: Sendable {
    private let state = Mutex<(redirectURI: String, url: String)?>(nil)

    var value: (redirectURI: String, url: String)? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

extension Optional {
    fileprivate func unwrapped(orThrow error: some Error) throws -> Wrapped {
        guard let self else { throw error }
        return self
    }
}
