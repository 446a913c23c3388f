import Foundation
import JWTKit

/// The client assertion of OAuth 2.0's `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, OpenID
/// Connect Core §9): a JWT the client signs with its private key, which the server checks with the public key
/// it holds for the client. No secret is shared; a fresh assertion, with its own `jti`, goes with each token
/// request. Signing is jwt-kit's.
public struct ClientAssertion: Sendable, Hashable {
    /// The PEM private key: RSA (2,048 bits or more; RS256), EC on P-256, P-384 or P-521 (ES256, ES384,
    /// ES512), or Ed25519 (EdDSA). The algorithm follows from the key.
    public var privateKey: String
    /// The `kid` of the assertion's header, when the server holds several keys for the client.
    public var keyID: String?

    /// How long an assertion is good for: a minute, as providers ask (most refuse one that lives long).
    static let lifetime: TimeInterval = 60

    public init(privateKey: String, keyID: String?) {
        self.privateKey = privateKey
        self.keyID = keyID
    }

    /// `client_assertion_type`'s value (RFC 7523 §2.2).
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The assertion `clientID` presents to the token endpoint `audience`, issued at `now`.
    /// - Throws: why the key cannot sign, in words that quote nothing of it.
    func signed(clientID: String, audience: String, now: Date = Date()) async throws(OAuthError) -> String {
        let keys = JWTKeyCollection()
        let kid = keyID.map { JWKIdentifier(string: $0) }
        if let key = try? Insecure.RSA.PrivateKey(pem: privateKey) {
            await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        } else if let key = try? ES256PrivateKey(pem: privateKey) {
            await keys.add(ecdsa: key, kid: kid)
        } else if let key = try? ES384PrivateKey(pem: privateKey) {
            await keys.add(ecdsa: key, kid: kid)
        } else if let key = try? ES512PrivateKey(pem: privateKey) {
            await keys.add(ecdsa: key, kid: kid)
        } else if let key = try? EdDSA.PrivateKey(pem: privateKey) {
            await keys.add(eddsa: key, kid: kid)
        } else {
            throw OAuthError(
                "the `private_key` of `private_key_jwt` is not a PEM private key reqplan can sign with (RSA of "
                    + "2,048 bits or more, EC on P-256, P-384 or P-521, or Ed25519)")
        }
        let claims = Claims(
            iss: IssuerClaim(value: clientID), sub: SubjectClaim(value: clientID),
            aud: AudienceClaim(value: [audience]), jti: IDClaim(value: UUID().uuidString),
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: now.addingTimeInterval(Self.lifetime)))
        do {
            return try await keys.sign(claims, kid: kid)
        } catch {
            throw OAuthError("the client assertion could not be signed with the `private_key` of `private_key_jwt`")
        }
    }

    /// The claims RFC 7523 §3 asks for: the client as issuer and subject, the token endpoint as audience, a
    /// unique id (servers refuse an assertion used twice) and a short life.
    private struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var jti: IDClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
