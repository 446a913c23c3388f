import Crypto
import Foundation
import ReqPlanSyntax
import ReqPlanTransport

/// Why a request could not be signed with AWS Signature Version 4. The message names the part at fault and
/// never holds a secret (the secret key, the session token, a signature).
public struct AWSSigV4Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// Kinds of signing failure.
    ///
    /// A struct over a private enum, as `TransportError.Kind` is: a kind added later is a new static member,
    /// not a new case that breaks a caller's exhaustive `switch` (callers switch with a `default`).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case credentials, scope, request, date
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The access key id, the secret key or the session token cannot be used (empty, or holding a
        /// character that would break the `Authorization` header).
        public static let credentials = Kind(.credentials)
        /// The service or the region cannot be part of a credential scope (empty, `/`, space, control).
        public static let scope = Kind(.scope)
        /// The method, the request target or a header cannot be signed.
        public static let request = Kind(.request)
        /// The signing date is not a time from 1970 to 9999.
        public static let date = Kind(.date)

        /// The kind's name (`credentials`, `scope`, `request`, `date`).
        public var rawValue: String { base.rawValue }
        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure it is.
    public var kind: Kind
    /// A sentence naming what is wrong, without any secret.
    public var message: String

    /// A failure of `kind`, said by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// AWS Signature Version 4 in its header form: the `Authorization: AWS4-HMAC-SHA256 Credential=…,
/// SignedHeaders=…, Signature=…` header and the `X-Amz-*` headers it signs, as AWS's documentation ("Create a
/// signed AWS API request") and botocore's `SigV4Auth` / `S3SigV4Auth` compute them.
///
/// The canonical request is made from what goes on the wire:
/// - the request target's path, as sent. For S3 it is used once encoded and never normalised (`/a/../b` stays,
///   as object keys may hold dots): what may not appear raw in a path is percent-encoded, the rest kept as sent.
///   For every other service the dot segments and empty segments are removed and the path is percent-encoded
///   again (RFC 3986 unreserved characters and `/` kept), so a path sent once encoded is signed twice encoded;
/// - the query: each name and value percent-decoded, then encoded with only the unreserved characters left
///   raw (`%20` for a space, `+` as `%2B`), sorted by name, then by value; a name without `=` has an empty value;
/// - the headers chosen by a `HeaderSelection` (`host` always), names in lower case, values trimmed with inner
///   runs of white space made one space, repeated names joined with `,`, sorted by name;
/// - the payload's SHA-256 in hexadecimal, or `UNSIGNED-PAYLOAD`.
///
/// The signing key is derived from the secret key, the date, the region and the service by HMAC-SHA256.
/// Nothing here reads a clock or the environment: the date and the credentials are given, so a test can give
/// them too.
public struct AWSSigV4: Sendable {
    /// An access key: its id, its secret and, for temporary credentials, the session token.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible {
        /// The access key id (`AKIDEXAMPLE`), part of the `Credential=` scope: not a secret.
        public var accessKeyID: String
        /// The secret access key; never part of a request, only of the signing key.
        public var secretAccessKey: String
        /// The session token of temporary credentials (STS), sent and signed as `X-Amz-Security-Token`.
        public var sessionToken: String?

        /// Credentials of an access key.
        /// - Parameters:
        ///   - accessKeyID: the access key id.
        ///   - secretAccessKey: the secret access key.
        ///   - sessionToken: the session token of temporary credentials, if any.
        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }

        /// The access key id only: the secret and the token are never shown.
        public var description: String { "AWSSigV4.Credentials(\(accessKeyID))" }
    }

    /// What the signature says of the body: its SHA-256, or that it is not signed.
    public struct Payload: Sendable, Hashable {
        private enum Base: Sendable, Hashable {
            case bytes([UInt8])
            case unsigned
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// A body whose SHA-256 is signed (`X-Amz-Content-Sha256: <hex>`).
        /// - Parameter bytes: the body as sent.
        public static func bytes(_ bytes: [UInt8]) -> Payload { Payload(.bytes(bytes)) }
        /// No body: the SHA-256 of nothing is signed.
        public static let empty = Payload(.bytes([]))
        /// A body that is not signed (`X-Amz-Content-Sha256: UNSIGNED-PAYLOAD`), for a streaming body, or one
        /// too large to hash first. S3 accepts it; most other services require a signed payload.
        public static let unsigned = Payload(.unsigned)

        /// The payload's line of the canonical request.
        var hash: String {
            switch base {
            case .bytes(let bytes): AWSSigV4.hex(SHA256.hash(data: bytes))
            case .unsigned: "UNSIGNED-PAYLOAD"
            }
        }

        /// Whether the body is not signed.
        var isUnsigned: Bool { base == .unsigned }
    }

    /// Which of the request's headers are signed, besides `host` and the `X-Amz-*` headers the signer adds.
    public struct HeaderSelection: Sendable, Hashable {
        private enum Base: Sendable, Hashable {
            case standard, all
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// `host`, `content-type`, `content-md5` and every `x-amz-*` header: what every AWS service requires
        /// signed, and nothing a proxy or the HTTP client may change on the way.
        public static let standard = HeaderSelection(.standard)
        /// Every header given but those botocore never signs (`authorization`, `expect`, `transfer-encoding`,
        /// `user-agent`, `x-amzn-trace-id`): the AWS test suite's way.
        public static let all = HeaderSelection(.all)

        /// Whether the header named `name` (in lower case) is signed.
        func includes(_ name: String) -> Bool {
            switch base {
            case .standard:
                return name == "host" || name == "content-type" || name == "content-md5" || name.hasPrefix("x-amz-")
            case .all:
                return !["authorization", "expect", "transfer-encoding", "user-agent", "x-amzn-trace-id"].contains(name)
            }
        }
    }

    /// The result of signing: the headers to add to the request, what was signed, and the secrets to redact.
    public struct Signature: Sendable, Hashable {
        /// The headers to set on the request, replacing any of the same name: `X-Amz-Date`, then
        /// `X-Amz-Content-Sha256` (for S3, for an unsigned payload, or when asked), then `X-Amz-Security-Token`
        /// (with a session token), then `Authorization`.
        public var headers: [HeaderField]
        /// The `Authorization` header's value.
        public var authorization: String
        /// The signature, 64 hexadecimal digits.
        public var signature: String
        /// The signed header names, in lower case, sorted, joined by `;`.
        public var signedHeaders: String
        /// The canonical request that was hashed (for a user comparing with a server's error message).
        public var canonicalRequest: String
        /// The string to sign.
        public var stringToSign: String
        /// Every value that must not be shown: the signature, the secret key and the session token.
        public var secrets: [String]
    }

    /// The service's signing name (`s3`, `sts`, `iam`, `execute-api`).
    public var service: String
    /// The region (`us-east-1`).
    public var region: String
    /// The access key.
    public var credentials: Credentials
    /// Whether `X-Amz-Content-Sha256` is sent for a signed payload of a service other than S3 (S3 always
    /// gets it, and every service gets it for an unsigned payload). Default true; the AWS test suite signs
    /// without it, as botocore's `SigV4Auth` does.
    public var sendsContentHash: Bool

    /// A signer for one service in one region with one access key.
    /// - Parameters:
    ///   - service: the service's signing name; `s3` signs paths as S3 wants them.
    ///   - region: the region.
    ///   - credentials: the access key.
    ///   - sendsContentHash: whether a service other than S3 gets `X-Amz-Content-Sha256` for a signed payload.
    public init(service: String, region: String, credentials: Credentials, sendsContentHash: Bool = true) {
        self.service = service
        self.region = region
        self.credentials = credentials
        self.sendsContentHash = sendsContentHash
    }

    /// Signs a request to `url`: its `authority` is the `Host`, its `target` the path and query.
    /// - Parameters:
    ///   - method: the method (`GET`).
    ///   - url: the request's URL.
    ///   - headers: the request's headers, of which `selection` picks those to sign.
    ///   - payload: the body, or `.unsigned`.
    ///   - selection: which headers are signed.
    ///   - date: the signing time (the server allows it a few minutes apart from its clock).
    /// - Returns: the headers to add, and the secrets among them.
    /// - Throws: `AWSSigV4Error` naming what cannot be signed.
    public func sign(
        method: String, url: RequestURL, headers: [HeaderField], payload: Payload,
        selection: HeaderSelection = .standard, date: Date
    ) throws(AWSSigV4Error) -> Signature {
        try sign(
            method: method, authority: url.authority, target: url.target, headers: headers, payload: payload,
            selection: selection, date: date)
    }

    /// Signs a request given by its parts, as they go on the wire.
    /// - Parameters:
    ///   - method: the method (`GET`).
    ///   - authority: the `Host` header's value (`host[:port]`), unless `headers` has a `Host`.
    ///   - target: the request target: the path, then `?` and the query if any (`/a%20b?x=1`).
    ///   - headers: the request's headers, of which `selection` picks those to sign.
    ///   - payload: the body, or `.unsigned`.
    ///   - selection: which headers are signed.
    ///   - date: the signing time.
    /// - Returns: the headers to add, and the secrets among them.
    /// - Throws: `AWSSigV4Error` naming what cannot be signed.
    public func sign(
        method: String, authority: String, target: String, headers: [HeaderField], payload: Payload,
        selection: HeaderSelection = .standard, date: Date
    ) throws(AWSSigV4Error) -> Signature {
        try check()
        guard !method.isEmpty, method.utf8.allSatisfy(HeaderLine.isTokenByte) else {
            throw AWSSigV4Error(.request, "the method is not an HTTP token")
        }
        guard target.hasPrefix("/"), !target.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw AWSSigV4Error(.request, "the request target must start with `/` and hold no control character")
        }
        let timestamp = try Self.timestamp(date)
        let day = String(timestamp.prefix(8))
        let isS3 = service == "s3"
        let sendsHash = isS3 || payload.isUnsigned || sendsContentHash
        let payloadHash = payload.hash

        // The headers the signer sets replace any of the same name.
        var added = [HeaderField("X-Amz-Date", timestamp)]
        if sendsHash { added.append(HeaderField("X-Amz-Content-Sha256", payloadHash)) }
        if let token = credentials.sessionToken { added.append(HeaderField("X-Amz-Security-Token", token)) }
        let replaced = Set(added.map { $0.name.lowercased() } + ["authorization"])
        var signed: [(name: String, value: String)] = []
        for header in headers {
            let name = header.name.lowercased()
            guard !replaced.contains(name), selection.includes(name) else { continue }
            guard !name.isEmpty, name.utf8.allSatisfy(HeaderLine.isTokenByte) else {
                throw AWSSigV4Error(.request, "a header name is not an HTTP token")
            }
            guard !header.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw AWSSigV4Error(.request, "the value of the header `\(name)` holds a control character")
            }
            signed.append((name, header.value))
        }
        if !signed.contains(where: { $0.name == "host" }) {
            guard !authority.isEmpty, !authority.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                throw AWSSigV4Error(.request, "the host is empty or holds a space or control character")
            }
            signed.append(("host", authority))
        }
        signed += added.map { ($0.name.lowercased(), $0.value) }

        // Values of one name joined by `,` in their order; names sorted (stable for equal names).
        var values: [String: [String]] = [:]
        for (name, value) in signed { values[name, default: []].append(Self.trimAll(value)) }
        let names = values.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let canonicalHeaders = names.map { "\($0):\(values[$0, default: []].joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")

        let questionMark = target.firstIndex(of: "?")
        let path = String(target[..<(questionMark ?? target.endIndex)])
        let query = questionMark.map { String(target[target.index(after: $0)...]) } ?? ""
        let canonicalRequest = [
            method.uppercased(),
            isS3 ? Self.wirePath(path) : Self.encodePath(Self.removeDotSegments(path)),
            Self.canonicalQuery(query),
            canonicalHeaders,
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")

        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", timestamp, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), "
            + "Signature=\(signature)"
        return Signature(
            headers: added + [HeaderField("Authorization", authorization)], authorization: authorization,
            signature: signature, signedHeaders: signedHeaders, canonicalRequest: canonicalRequest,
            stringToSign: stringToSign,
            secrets: [signature, credentials.secretAccessKey] + (credentials.sessionToken.map { [$0] } ?? []))
    }

    /// Checks the credentials and the scope: nothing that would break the `Authorization` header or the scope.
    private func check() throws(AWSSigV4Error) {
        for (part, name) in [(service, "service"), (region, "region")] {
            guard !part.isEmpty, part.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
                throw AWSSigV4Error(.scope, "the \(name) must be non-empty printable ASCII without `/` or space")
            }
        }
        let badInID: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: ","), UInt8(ascii: "=")]
        guard !credentials.accessKeyID.isEmpty,
            credentials.accessKeyID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !badInID.contains($0) })
        else {
            throw AWSSigV4Error(
                .credentials, "the access key id must be non-empty printable ASCII without `/`, `,`, `=`")
        }
        guard !credentials.secretAccessKey.isEmpty else {
            throw AWSSigV4Error(.credentials, "the secret access key is empty")
        }
        if let token = credentials.sessionToken {
            guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw AWSSigV4Error(.credentials, "the session token must be non-empty printable ASCII")
            }
        }
    }

    // MARK: Canonical parts

    /// `YYYYMMDD'T'HHMMSS'Z'` in UTC.
    static func timestamp(_ date: Date) throws(AWSSigV4Error) -> String {
        let seconds = date.timeIntervalSince1970
        // 1970-01-01 to 9999-12-31: a four-digit year, and no trap converting to Int.
        guard seconds.isFinite, seconds >= 0, seconds < 253_402_300_800 else {
            throw AWSSigV4Error(.date, "the signing date must be between 1970 and 9999")
        }
        let whole = Int(seconds.rounded(.down))
        let (days, second) = (whole / 86_400, whole % 86_400)
        // Howard Hinnant's civil_from_days.
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)\(two(month))\(two(day))T\(two(second / 3_600))\(two(second / 60 % 60))\(two(second % 60))Z"
    }

    /// The path without `.` and `..` segments and without empty segments, keeping a leading and a trailing `/`
    /// (botocore's `normalize_url_path`): `//a/./b/../c//` is `/a/c/`.
    static func removeDotSegments(_ path: String) -> String {
        var kept: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) where segment != "." {
            if segment == ".." {
                _ = kept.popLast()
            } else {
                kept.append(segment)
            }
        }
        let trailing = path.hasSuffix("/") && !kept.isEmpty ? "/" : ""
        return "/" + kept.joined(separator: "/") + trailing
    }

    /// Each segment percent-encoded, `%` included (RFC 3986 unreserved characters kept): a path sent once
    /// encoded is encoded twice.
    static func encodePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { URLEncoding.percentEncode(String($0)) }
            .joined(separator: "/")
    }

    /// The path as it goes on the wire: what may not appear raw in a path (RFC 3986 `pchar`) percent-encoded,
    /// everything else, `%` escapes included, as given.
    static func wirePath(_ path: String) -> String {
        let allowed = Set("!$&'()*+,;=:@/%-._~".utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in path.utf8 {
            if Self.isAlphanumeric(byte) || allowed.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The query's parameters decoded, encoded again with only the unreserved characters raw, sorted by
    /// name then value, joined by `&`.
    static func canonicalQuery(_ query: String) -> String {
        guard !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { pair -> (String, String) in
            let equals = pair.firstIndex(of: "=")
            let name = pair[..<(equals ?? pair.endIndex)]
            let value = equals.map { pair[pair.index(after: $0)...] } ?? ""
            return (
                URLEncoding.percentEncode(percentDecode(name)), URLEncoding.percentEncode(percentDecode(value))
            )
        }
        return pairs.sorted { left, right in
            left.0 == right.0
                ? Array(left.1.utf8).lexicographicallyPrecedes(Array(right.1.utf8))
                : Array(left.0.utf8).lexicographicallyPrecedes(Array(right.0.utf8))
        }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// `%XX` escapes decoded to their bytes (a `%` not followed by two hex digits kept as it is; `+` stays `+`),
    /// the bytes read as UTF-8 (an invalid sequence becoming U+FFFD).
    static func percentDecode<Text: StringProtocol>(_ text: Text) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value trimmed, its inner runs of white space (space, tab, line breaks) made one space (the spec's
    /// `Trimall`, botocore's `' '.join(value.split())`).
    static func trimAll(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .joined(separator: " ")
    }

    /// Lower-case hexadecimal.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
