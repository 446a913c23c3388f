import Crypto
import Foundation
import ReqPlanSyntax
import ReqPlanTransport

/// Why a Digest challenge could not be read or answered. The message names the problem and where, never the
/// password, and quotes nothing of the challenge but parameter names.
public struct DigestAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Kinds of Digest failure.
    ///
    /// A struct over a private enum, as `TransportError.Kind` is: a kind added later is a new static member,
    /// not a new case that breaks a caller's exhaustive `switch` (callers switch with a `default`).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case malformed, tooLarge = "too_large", missingParameter = "missing_parameter", noChallenge = "no_challenge"
            case unsupported, invalidInput = "invalid_input"
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The `WWW-Authenticate` value is not what RFC 9110 §11.6.1 allows (an unterminated quoted string, a
        /// control character, a parameter given twice, a missing value).
        public static let malformed = Kind(.malformed)
        /// The `WWW-Authenticate` value is longer, or has more challenges or parameters, than a client reads.
        public static let tooLarge = Kind(.tooLarge)
        /// A Digest challenge lacks `realm` or `nonce`.
        public static let missingParameter = Kind(.missingParameter)
        /// No Digest challenge was offered.
        public static let noChallenge = Kind(.noChallenge)
        /// The challenge asks for what is not implemented: an algorithm other than MD5, MD5-sess, SHA-256 and
        /// SHA-256-sess, a `qop` other than `auth` and `auth-int`, `auth-int` without the body.
        public static let unsupported = Kind(.unsupported)
        /// The method, URI, client nonce or nonce count given cannot be sent.
        public static let invalidInput = Kind(.invalidInput)

        /// The kind's name (`malformed`, `too_large`, …).
        public var rawValue: String { base.rawValue }
        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure it is.
    public var kind: Kind
    /// A sentence naming the problem, without the password or the challenge's values.
    public var message: String

    /// A failure of `kind`, said by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// HTTP Digest access authentication (RFC 7616, and RFC 2617's and RFC 2069's servers): reads the
/// `WWW-Authenticate: Digest …` challenges of a 401 and computes the `Authorization: Digest …` answer.
///
/// The reader follows RFC 9110 §11.6.1: several challenges in one value (and several values), each a scheme and
/// its comma-separated `name=value` parameters or a `token68`; quoted strings with `\` escapes; other schemes
/// (Basic, Bearer) and unknown parameters skipped. It reads at most `maxValueLength` bytes, `maxChallenges`
/// challenges and `maxParameters` parameters each, and throws `DigestAuthError` at anything else: a control
/// character, an unterminated quoted string, a parameter given twice, a Digest challenge without `realm` or
/// `nonce`. Nothing a server sends can make it trap.
public struct DigestAuth: Sendable {
    /// The longest `WWW-Authenticate` value read, in bytes (all the values given, together).
    public static let maxValueLength = 16_384
    /// The most challenges read.
    public static let maxChallenges = 16
    /// The most parameters read in one challenge.
    public static let maxParameters = 32

    /// The hash algorithm a challenge names (`algorithm=`; MD5 when it names none). Two algorithms are equal
    /// when their names are, but for case (`sha-256` is `.sha256`).
    public struct Algorithm: Sendable, Hashable, CustomStringConvertible {
        /// The algorithm's name as the challenge wrote it (`MD5` when it wrote none), and as the answer names it
        /// back: some servers compare it exactly.
        public let name: String

        /// The algorithm named `name`.
        public init(_ name: String) { self.name = name }

        /// Whether the names are the same but for case.
        public static func == (left: Algorithm, right: Algorithm) -> Bool {
            left.name.lowercased() == right.name.lowercased()
        }

        /// Hashes the name in lower case, as `==` compares it.
        public func hash(into hasher: inout Hasher) { hasher.combine(name.lowercased()) }

        /// MD5 (RFC 2617's default; RFC 7616 keeps it for compatibility).
        public static let md5 = Algorithm("MD5")
        /// MD5 with a session key (the client nonce in A1).
        public static let md5Session = Algorithm("MD5-sess")
        /// SHA-256 (RFC 7616).
        public static let sha256 = Algorithm("SHA-256")
        /// SHA-256 with a session key.
        public static let sha256Session = Algorithm("SHA-256-sess")

        /// Whether this client can answer it.
        public var isSupported: Bool { hash != nil }

        /// Whether A1 includes the nonces (`-sess`).
        var isSession: Bool { name.lowercased().hasSuffix("-sess") }

        /// The hash function, in lower-case hexadecimal, or nil for an algorithm not implemented.
        var hash: (@Sendable ([UInt8]) -> String)? {
            switch name.lowercased() {
            case "md5", "md5-sess": { DigestAuth.hex(Insecure.MD5.hash(data: $0)) }
            case "sha-256", "sha-256-sess": { DigestAuth.hex(SHA256.hash(data: $0)) }
            default: nil
            }
        }

        /// The name.
        public var description: String { name }
    }

    /// One Digest challenge of a `WWW-Authenticate` value.
    public struct Challenge: Sendable, Hashable {
        /// The protection space (`realm=`), shown to users and part of A1.
        public var realm: String
        /// The server's nonce.
        public var nonce: String
        /// The server's opaque value, sent back unchanged.
        public var opaque: String?
        /// The hash algorithm (MD5 when the challenge names none).
        public var algorithm: Algorithm
        /// Whether the challenge named its algorithm (an answer names it back only then, as curl does, for
        /// RFC 2069 servers).
        public var namesAlgorithm: Bool
        /// The qualities of protection offered (`auth`, `auth-int`), in lower case; empty for an RFC 2069
        /// challenge without `qop`.
        public var qop: [String]
        /// Whether the previous answer was refused only because its nonce was stale (`stale=true`): answer
        /// again with the new nonce without asking the user again.
        public var stale: Bool
        /// Whether the server wants the user name hashed (`userhash=true`, RFC 7616 §3.4.4).
        public var userhash: Bool
        /// The URIs of the protection space (`domain=`), as written.
        public var domain: String?
        /// Whether the server declares it reads user names and passwords as UTF-8 (`charset=UTF-8`).
        public var charsetIsUTF8: Bool

        /// A challenge for `realm` and `nonce`, with the other parameters at their defaults.
        public init(
            realm: String, nonce: String, opaque: String? = nil, algorithm: Algorithm = .md5,
            namesAlgorithm: Bool = true, qop: [String] = ["auth"], stale: Bool = false, userhash: Bool = false,
            domain: String? = nil, charsetIsUTF8: Bool = false
        ) {
            self.realm = realm
            self.nonce = nonce
            self.opaque = opaque
            self.algorithm = algorithm
            self.namesAlgorithm = namesAlgorithm
            self.qop = qop
            self.stale = stale
            self.userhash = userhash
            self.domain = domain
            self.charsetIsUTF8 = charsetIsUTF8
        }
    }

    /// An answer to a challenge: the `Authorization` header's value and what was used to make it.
    public struct Answer: Sendable, Hashable {
        /// The `Authorization` header's value (`Digest username="…", …`).
        public var authorization: String
        /// The `response=` digest.
        public var response: String
        /// The client nonce sent (`cnonce=`), nil without `qop`.
        public var cnonce: String?
        /// The nonce count sent (`nc=`), nil without `qop`.
        public var nonceCount: UInt32?
        /// The quality of protection used (`auth`, `auth-int`), nil for an RFC 2069 answer.
        public var qop: String?
        /// Every value that must not be shown: the password and the response digest.
        public var secrets: [String]
    }

    /// The user name.
    public var username: String
    /// The password; never sent, only hashed.
    public var password: String

    /// Credentials to answer Digest challenges with.
    /// - Parameters:
    ///   - username: the user name (sent as `username*` in RFC 8187's encoding when it is not ASCII, unless the
    ///     challenge asks for it hashed).
    ///   - password: the password.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    // MARK: Reading challenges

    /// The Digest challenges in `WWW-Authenticate` values, in their order; other schemes are skipped.
    /// - Parameter values: the values of every `WWW-Authenticate` field of the response.
    /// - Returns: the Digest challenges, maybe none.
    /// - Throws: `DigestAuthError` (`.malformed`, `.tooLarge`, `.missingParameter`) for a value that is not
    ///   well formed or a Digest challenge without `realm` or `nonce`.
    public static func challenges(in values: [String]) throws(DigestAuthError) -> [Challenge] {
        guard values.reduce(0, { $0 + $1.utf8.count }) <= maxValueLength else {
            throw DigestAuthError(.tooLarge, "the WWW-Authenticate value is longer than \(maxValueLength) bytes")
        }
        var found: [Challenge] = []
        var count = 0
        for value in values {
            var reader = ChallengeReader(Array(value.utf8))
            while let (scheme, parameters) = try reader.next() {
                count += 1
                guard count <= maxChallenges else {
                    throw DigestAuthError(
                        .tooLarge, "the WWW-Authenticate value has more than \(maxChallenges) challenges")
                }
                if scheme.lowercased() == "digest" { found.append(try challenge(parameters)) }
            }
        }
        return found
    }

    /// The challenge to answer: the first Digest challenge whose algorithm this client supports (RFC 7616 §3.7:
    /// a server lists its challenges in its order of preference).
    /// - Parameter values: the values of every `WWW-Authenticate` field of the response.
    /// - Returns: the challenge.
    /// - Throws: `DigestAuthError`: `.noChallenge` without a Digest challenge, `.unsupported` when none has a
    ///   supported algorithm, or what `challenges(in:)` throws.
    public static func preferredChallenge(in values: [String]) throws(DigestAuthError) -> Challenge {
        let all = try challenges(in: values)
        guard !all.isEmpty else { throw DigestAuthError(.noChallenge, "the response offers no Digest challenge") }
        guard let supported = all.first(where: \.algorithm.isSupported) else {
            let names = all.map(\.algorithm.name).joined(separator: ", ")
            throw DigestAuthError(
                .unsupported,
                "no Digest challenge has a supported algorithm (offered: \(Self.visible(names)); supported: "
                    + "MD5, MD5-sess, SHA-256, SHA-256-sess)")
        }
        return supported
    }

    /// A Digest challenge from its parameters (names in lower case).
    private static func challenge(_ parameters: [(name: String, value: String)]) throws(DigestAuthError) -> Challenge {
        var seen: Set<String> = []
        var byName: [String: String] = [:]
        for (name, value) in parameters {
            guard seen.insert(name).inserted else {
                throw DigestAuthError(.malformed, "the Digest challenge gives `\(name)` twice")
            }
            byName[name] = value
        }
        guard let realm = byName["realm"] else {
            throw DigestAuthError(.missingParameter, "the Digest challenge has no realm")
        }
        guard let nonce = byName["nonce"], !nonce.isEmpty else {
            throw DigestAuthError(.missingParameter, "the Digest challenge has no nonce")
        }
        let qop = (byName["qop"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
        return Challenge(
            realm: realm, nonce: nonce, opaque: byName["opaque"], algorithm: Algorithm(byName["algorithm"] ?? "MD5"),
            namesAlgorithm: byName["algorithm"] != nil, qop: qop, stale: byName["stale"]?.lowercased() == "true",
            userhash: byName["userhash"]?.lowercased() == "true", domain: byName["domain"],
            charsetIsUTF8: byName["charset"]?.lowercased() == "utf-8")
    }

    /// Reads the challenges of one `WWW-Authenticate` value, one at a time (RFC 9110 §11.6.1).
    private struct ChallengeReader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next challenge's scheme and parameters (names in lower case; none for a `token68`), or nil at
        /// the end.
        mutating func next() throws(DigestAuthError) -> (String, [(name: String, value: String)])? {
            skipSeparators()
            guard index < bytes.count else { return nil }
            let scheme = try token("an authentication scheme")
            var parameters: [(name: String, value: String)] = []
            let spaced = skipSpace()
            guard index < bytes.count, bytes[index] != UInt8(ascii: ",") else { return (scheme, parameters) }
            guard spaced else { throw malformed("expected a space after the scheme") }
            if skipToken68() { return (scheme, parameters) }
            while true {
                let name = try token("a parameter name").lowercased()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                    throw malformed("expected `=` after the parameter `\(name)`")
                }
                index += 1
                skipSpace()
                let value = try parameterValue(name)
                parameters.append((name, value))
                guard parameters.count <= DigestAuth.maxParameters else {
                    throw DigestAuthError(
                        .tooLarge, "a challenge has more than \(DigestAuth.maxParameters) parameters")
                }
                skipSpace()
                guard index < bytes.count else { break }
                guard bytes[index] == UInt8(ascii: ",") else {
                    throw malformed("expected `,` after the parameter `\(name)`")
                }
                // After commas: another parameter (`name =`), or the next challenge's scheme.
                skipSeparators()
                guard index < bytes.count, startsParameter() else { break }
            }
            return (scheme, parameters)
        }

        /// Whether a `name=` (not a `token68`'s padding) starts at the index.
        private func startsParameter() -> Bool {
            var at = index
            while at < bytes.count, HeaderLine.isTokenByte(bytes[at]) { at += 1 }
            guard at > index else { return false }
            while at < bytes.count, bytes[at] == UInt8(ascii: " ") || bytes[at] == UInt8(ascii: "\t") { at += 1 }
            return at < bytes.count && bytes[at] == UInt8(ascii: "=")
        }

        /// Skips a `token68` (and what follows it up to a comma or the end) if one is at the index.
        private mutating func skipToken68() -> Bool {
            var at = index
            while at < bytes.count, DigestAuth.isToken68Byte(bytes[at]) { at += 1 }
            guard at > index else { return false }
            while at < bytes.count, bytes[at] == UInt8(ascii: "=") { at += 1 }
            var end = at
            while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
            guard end == bytes.count || bytes[end] == UInt8(ascii: ",") else { return false }
            index = end
            return true
        }

        /// A parameter's value: a quoted string (its escapes undone) or a run of visible characters other
        /// than `,` and `"` (a token, leniently: servers send nonces with `/` and `=` unquoted).
        private mutating func parameterValue(_ name: String) throws(DigestAuthError) -> String {
            guard index < bytes.count else { throw malformed("the parameter `\(name)` has no value") }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var value: [UInt8] = []
                while index < bytes.count {
                    let byte = bytes[index]
                    switch byte {
                    case UInt8(ascii: "\""):
                        index += 1
                        return String(decoding: value, as: UTF8.self)
                    case UInt8(ascii: "\\"):
                        guard index + 1 < bytes.count, !DigestAuth.isControl(bytes[index + 1]) else {
                            throw malformed("the quoted value of `\(name)` ends in `\\` or escapes a control character")
                        }
                        value.append(bytes[index + 1])
                        index += 2
                    default:
                        guard !DigestAuth.isControl(byte) else {
                            throw malformed("the quoted value of `\(name)` holds a control character")
                        }
                        value.append(byte)
                        index += 1
                    }
                }
                throw malformed("the quoted value of `\(name)` is not terminated")
            }
            let start = index
            while index < bytes.count, bytes[index] > 0x20, bytes[index] < 0x7F, bytes[index] != UInt8(ascii: ","),
                bytes[index] != UInt8(ascii: "\"")
            {
                index += 1
            }
            guard index > start else { throw malformed("the parameter `\(name)` has no value") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A token (RFC 9110 `tchar`s), or an error naming what was expected.
        private mutating func token(_ what: String) throws(DigestAuthError) -> String {
            let start = index
            while index < bytes.count, HeaderLine.isTokenByte(bytes[index]) { index += 1 }
            guard index > start else { throw malformed("expected \(what)") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Skips spaces and tabs; whether there were any.
        @discardableResult private mutating func skipSpace() -> Bool {
            let start = index
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
            return index > start
        }

        /// Skips spaces, tabs and commas (empty list elements are allowed).
        private mutating func skipSeparators() {
            while index < bytes.count,
                bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")
                    || bytes[index] == UInt8(ascii: ",")
            {
                index += 1
            }
        }

        /// A `.malformed` error at the current byte offset (a control character there is named as such).
        private func malformed(_ what: String) -> DigestAuthError {
            if index < bytes.count, DigestAuth.isControl(bytes[index]) {
                return DigestAuthError(.malformed, "WWW-Authenticate: a control character at byte \(index)")
            }
            return DigestAuthError(.malformed, "WWW-Authenticate: \(what) at byte \(index)")
        }
    }

    // MARK: Answering

    /// The `Authorization` header that answers `challenge` for a request (RFC 7616 §3.4).
    ///
    /// With `qop` offered, `auth` is used when offered, else `auth-int` (which signs the body, so needs it);
    /// without, the RFC 2069 answer (no client nonce) is made.
    /// - Parameters:
    ///   - challenge: the challenge, from `preferredChallenge(in:)`.
    ///   - method: the request's method.
    ///   - uri: the request target as sent (`/dir/index.html?x=1`).
    ///   - cnonce: the client nonce; nil makes a random one (16 random bytes in hexadecimal).
    ///   - nonceCount: how many requests this nonce has answered, this one included (`nc=`, from 1).
    ///   - body: the request's body, needed only for `qop=auth-int`.
    /// - Returns: the header's value, and the secrets in it.
    /// - Throws: `DigestAuthError` (`.unsupported`, `.invalidInput`) for what cannot be answered.
    public func authorization(
        for challenge: Challenge, method: String, uri: String, cnonce: String? = nil, nonceCount: UInt32 = 1,
        body: [UInt8]? = nil
    ) throws(DigestAuthError) -> Answer {
        guard let hash = challenge.algorithm.hash else {
            throw DigestAuthError(
                .unsupported, "the Digest algorithm \(Self.visible(challenge.algorithm.name)) is not supported")
        }
        guard !method.isEmpty, method.utf8.allSatisfy(HeaderLine.isTokenByte) else {
            throw DigestAuthError(.invalidInput, "the method is not an HTTP token")
        }
        guard !uri.isEmpty, !uri.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw DigestAuthError(.invalidInput, "the URI is empty or holds a space or control character")
        }
        guard nonceCount >= 1 else { throw DigestAuthError(.invalidInput, "the nonce count starts at 1") }
        let qop: String?
        if challenge.qop.isEmpty {
            guard !challenge.algorithm.isSession else {
                throw DigestAuthError(.unsupported, "a -sess algorithm needs a qop, and the challenge offers none")
            }
            qop = nil
        } else if challenge.qop.contains("auth") {
            qop = "auth"
        } else if challenge.qop.contains("auth-int") {
            guard body != nil else {
                throw DigestAuthError(
                    .unsupported, "the challenge asks for qop=auth-int, which signs the body: give it")
            }
            qop = "auth-int"
        } else {
            throw DigestAuthError(
                .unsupported,
                "the challenge offers qop \(Self.visible(challenge.qop.joined(separator: ", "))); "
                    + "supported: auth, auth-int")
        }
        let clientNonce = qop == nil ? nil : (cnonce ?? Self.randomNonce())
        if let clientNonce {
            guard !clientNonce.isEmpty,
                clientNonce.utf8.allSatisfy({
                    $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
                })
            else {
                throw DigestAuthError(.invalidInput, "the client nonce must be visible ASCII without `\"` or `\\`")
            }
        }
        let nc = Self.hex8(nonceCount)

        func h(_ text: String) -> String { hash(Array(text.utf8)) }
        var ha1 = h("\(username):\(challenge.realm):\(password)")
        if challenge.algorithm.isSession, let clientNonce { ha1 = h("\(ha1):\(challenge.nonce):\(clientNonce)") }
        let ha2 = qop == "auth-int" ? h("\(method):\(uri):\(hash(body ?? []))") : h("\(method):\(uri)")
        let response =
            if let qop, let clientNonce {
                h("\(ha1):\(challenge.nonce):\(nc):\(clientNonce):\(qop):\(ha2)")
            } else {
                h("\(ha1):\(challenge.nonce):\(ha2)")
            }

        var fields: [String] = []
        if challenge.userhash {
            fields.append("username=\(Self.quoted(h("\(username):\(challenge.realm)")))")
        } else if username.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields.append("username=\(Self.quoted(username))")
        } else {
            fields.append("username*=UTF-8''\(Self.extValue(username))")
        }
        fields.append("realm=\(Self.quoted(challenge.realm))")
        fields.append("uri=\(Self.quoted(uri))")
        if challenge.namesAlgorithm { fields.append("algorithm=\(challenge.algorithm.name)") }
        fields.append("nonce=\(Self.quoted(challenge.nonce))")
        if let qop, let clientNonce {
            fields += ["nc=\(nc)", "cnonce=\(Self.quoted(clientNonce))", "qop=\(qop)"]
        }
        fields.append("response=\(Self.quoted(response))")
        if let opaque = challenge.opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        if challenge.userhash { fields.append("userhash=true") }
        return Answer(
            authorization: "Digest " + fields.joined(separator: ", "), response: response, cnonce: clientNonce,
            nonceCount: qop == nil ? nil : nonceCount, qop: qop, secrets: [password, response])
    }

    // MARK: Helpers

    /// A quoted string, `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }

    /// RFC 8187's `value-chars`: UTF-8, everything but `attr-char` percent-encoded.
    static func extValue(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        let attrChar = Set("!#$&+-.^_`|~".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if isAlphanumeric(byte) || attrChar.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A nonce count as eight lower-case hexadecimal digits (`00000001`).
    static func hex8(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// 16 random bytes in hexadecimal.
    static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Lower-case hexadecimal.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// A server's text for a message: at most 64 characters, control characters shown as `?`.
    static func visible(_ text: String) -> String {
        let shown = String(
            text.unicodeScalars.prefix(64).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return text.unicodeScalars.count > 64 ? shown + "…" : shown
    }

    /// Controls other than the horizontal tab (RFC 9110's `qdtext` allows tabs).
    static func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// RFC 9110's `token68` characters (but the `=` padding).
    static func isToken68Byte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "-._~+/".utf8.contains(byte)
    }
}
