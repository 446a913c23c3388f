import Foundation
import ReqPlanSyntax

/// Credentials found in imported requests become `auth:` and secret inputs, never literals in the plan:
/// `Authorization: Bearer …` is `auth: { bearer }`, `Authorization: Basic …` is `auth: { basic }` (the user
/// name an input with its default, the password a secret input), any other `Authorization`, a header named
/// like a credential (`X-Api-Key`, `X-Auth-Token`, …) and a cookie value of 8 characters or more a secret
/// input. A value the data-flow finder already turned into a reference stays one.
enum Credentials {
    /// Whether a name (a shell variable, a header, a cookie, a JSON field) names a credential.
    static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        // Searched in UTF-8 bytes, not through Foundation's `range(of:)` or the standard library's generic
        // `firstRange(of:)`: a long HAR asks for every header and every field of every response body.
        let bytes = Array(lower.utf8)
        return secretWords.contains { word in
            guard bytes.count >= word.count else { return false }
            return (0...(bytes.count - word.count)).contains { start in
                bytes[start] == word[0] && bytes[start..<(start + word.count)].elementsEqual(word)
            }
        } || lower == "key" || lower.hasSuffix("-key") || lower.hasSuffix("_key")
    }

    private static let secretWords: [[UInt8]] = [
        "token", "secret", "password", "passwd", "apikey", "api-key", "api_key", "auth", "session", "credential",
    ].map { Array($0.utf8) }

    /// Rewrites the credentials of `step`'s headers; each secret is one input however many steps send it.
    static func protect(_ step: inout ImportedStep, inputs: inout InputTable) {
        var kept: [Pair] = []
        for header in step.headers {
            let name = header.name.lowercased()
            guard let value = header.value.literal else {
                // `Authorization: Bearer $TOKEN`: the token is already an input.
                if name == "authorization", case .literal(let scheme)? = header.value.pieces.first,
                    scheme.lowercased() == "bearer ", header.value.pieces.count > 1
                {
                    step.auth = .bearer(PlanText(pieces: Array(header.value.pieces.dropFirst())))
                } else {
                    kept.append(header)
                }
                continue
            }
            // A header of its own wins over `-u` and `--oauth2-bearer`, as with curl.
            if name == "authorization", let auth = authorization(value, inputs: &inputs) {
                step.auth = auth
            } else if name == "cookie" {
                kept.append(Pair(header.name, cookies(value, inputs: &inputs)))
            } else if name == "authorization" || name == "proxy-authorization" || isSecretName(name), !value.isEmpty {
                if name == "authorization" { step.auth = nil }
                let input = inputs.input(
                    for: value, named: name, secret: true, description: "the `\(header.name)` header sent")
                kept.append(Pair(header.name, .reference(.input(input))))
            } else {
                kept.append(header)
            }
        }
        step.headers = kept
        switch step.body {
        case .form(let fields)?:
            step.body = .form(
                fields.map { field in
                    guard isSecretName(field.name), let value = field.value.literal, !value.isEmpty else {
                        return field
                    }
                    return Pair(field.name, secret(value, named: field.name, inputs: &inputs))
                })
        case .json(let value)?:
            step.body = .json(protect(value, inputs: &inputs))
        default:
            break
        }
    }

    /// A JSON body whose string members named like credentials (`password`, `token`, …) are secret inputs.
    private static func protect(_ value: PlanValue, inputs: inout InputTable) -> PlanValue {
        switch value {
        case .list(let items):
            return .list(items.map { protect($0, inputs: &inputs) })
        case .object(let members):
            return .object(
                members.map { member in
                    if isSecretName(member.key), case .text(let text) = member.value, let literal = text.literal,
                        !literal.isEmpty
                    {
                        return PlanValue.Member(member.key, .text(secret(literal, named: member.key, inputs: &inputs)))
                    }
                    return PlanValue.Member(member.key, protect(member.value, inputs: &inputs))
                })
        default:
            return value
        }
    }

    private static func secret(_ value: String, named name: String, inputs: inout InputTable) -> PlanText {
        .reference(.input(inputs.input(for: value, named: name, secret: true, description: "the `\(name)` sent")))
    }

    /// `auth:` for an `Authorization` value of the Bearer or Basic scheme.
    private static func authorization(_ value: String, inputs: inout InputTable) -> ImportedAuth? {
        let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        let credential = parts[1].trimmingCharacters(in: .whitespaces)
        switch parts[0].lowercased() {
        case "bearer" where !credential.isEmpty:
            let input = inputs.input(
                for: credential, named: "token", secret: true, description: "the bearer token sent")
            return .bearer(.reference(.input(input)))
        case "basic":
            guard let data = Data(base64Encoded: credential), let pair = String(data: data, encoding: .utf8),
                let colon = pair.firstIndex(of: ":")
            else { return nil }
            return basic(
                user: String(pair[..<colon]), password: String(pair[pair.index(after: colon)...]), inputs: &inputs)
        default:
            return nil
        }
    }

    /// `auth: { basic }` of a user name (an input with its default) and a password (a secret input).
    static func basic(user: String, password: String, inputs: inout InputTable, digest: Bool = false) -> ImportedAuth {
        let username = inputs.input(for: user, named: "username", secret: false, description: "the user name sent")
        let secret = inputs.input(for: password, named: "password", secret: true, description: "the password sent")
        let pair = (PlanText.reference(.input(username)), PlanText.reference(.input(secret)))
        return digest ? .digest(username: pair.0, password: pair.1) : .basic(username: pair.0, password: pair.1)
    }

    /// A `Cookie` header's value with each value of 8 characters or more a secret input named after its cookie
    /// (shorter ones, such as `lang=en`, are preferences and stay).
    private static func cookies(_ value: String, inputs: inout InputTable) -> PlanText {
        var pieces: [PlanText.Piece] = []
        for (index, pair) in value.split(separator: ";").enumerated() {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            pieces.append(.literal(index == 0 ? "" : "; "))
            guard let equals = trimmed.firstIndex(of: "="), trimmed.distance(from: equals, to: trimmed.endIndex) > 8
            else {
                pieces.append(.literal(trimmed))
                continue
            }
            let name = String(trimmed[..<equals])
            let input = inputs.input(
                for: String(trimmed[trimmed.index(after: equals)...]), named: name, secret: true,
                description: "the cookie `\(name)` sent")
            pieces.append(.literal(name + "="))
            pieces.append(.reference(.input(input)))
        }
        return PlanText(pieces: pieces.filter { $0 != .literal("") })
    }
}
