import ReqPlanTransport
import ReqPlanSyntax

/// Which values of one plan instance carry a secret, so that what reqplan shows of a value built from
/// them says `***` exactly where a secret went in, and shows the rest as it is.
///
/// Redaction is by value, not by text: an expression that reads a secret (a secret input, the
/// environment variable of one, a var or a for_each item computed from one, a secret output of a
/// sub-plan, a header secret by its name) is shown as `***` wherever its value is
/// interpolated (a URL, a header, a body, an output, an expected value in a failure message); a literal
/// that merely contains a secret's text, a key, a name or a number is left alone. What cannot be traced
/// this way (a response that echoes a secret, a library's error text) is covered by `Redactor`'s
/// textual safety net, for secrets long enough not to collide with ordinary text.
public struct SecretFlow: Sendable, Hashable {
    /// Header names (lower case) whose values are secrets in every output: credentials and cookies.
    public static let alwaysSecretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie",
    ]

    /// Inputs that carry a secret: declared `secret: true`, or given a secret value by the calling step.
    public var inputs: Set<String> = []
    /// Environment variables (`env.NAME`) of secret inputs.
    public var environment: Set<String> = []
    /// Vars whose value reads a secret.
    public var variables: Set<String> = []
    /// for_each item names whose list reads a secret.
    public var items: Set<String> = []
    /// Sub-plan step id → its outputs that carry a secret (declared `secret: true`, or computed from one).
    public var stepOutputs: [String: Set<String>] = [:]
    /// Header names (lower case) whose values are secrets: `alwaysSecretHeaders` and `redact_headers`.
    public var headers: Set<String> = alwaysSecretHeaders

    /// A flow in which nothing but the headers of credentials and cookies carry secrets.
    public init() {}

    /// Whether evaluating `expression` reads a secret.
    public func carriesSecret(_ expression: Expression) -> Bool {
        switch expression {
        case .literal: return false
        case .variable(let name): return rootCarriesSecret(name.value, path: [])
        case .access(let base, _, _):
            // A part of a computed value (`jsonpath(…)[0]`) carries a secret when the value does.
            guard let reference = expression.reference else { return carriesSecret(base) }
            return rootCarriesSecret(reference.root.value, path: reference.components.map(\.value))
        case .call(_, let arguments, _): return arguments.contains(where: carriesSecret)
        case .not(let operand, _): return carriesSecret(operand)
        case .binary(_, let left, let right, _): return carriesSecret(left) || carriesSecret(right)
        }
    }

    /// Whether some expression of `template` reads a secret.
    public func carriesSecret(_ template: Template) -> Bool {
        template.parts.contains { part in
            if case .expression(let expression) = part { return carriesSecret(expression) }
            return false
        }
    }

    /// Whether some expression of `template` reads a secret.
    public func carriesSecret(_ template: ValueTemplate) -> Bool {
        switch template {
        case .literal: false
        case .template(let inner): carriesSecret(inner)
        case .list(let items, _): items.contains(where: carriesSecret)
        case .object(let entries, _): entries.contains { carriesSecret($0.value) }
        }
    }

    private func rootCarriesSecret(_ root: String, path: [PathComponent]) -> Bool {
        switch root {
        case "inputs":
            guard case .member(let name)? = path.first else { return !inputs.isEmpty }
            return inputs.contains(name)
        case "env":
            guard case .member(let name)? = path.first else { return !environment.isEmpty }
            return environment.contains(name)
        case "vars":
            guard case .member(let name)? = path.first else { return !variables.isEmpty }
            return variables.contains(name)
        case "steps":
            guard case .member(let id)? = path.first else { return true }
            return resultCarriesSecret(path.dropFirst(), outputs: stepOutputs[id] ?? [])
        case "response":
            // `until:` of a poll reads the response as a request result.
            return resultCarriesSecret(path[...], outputs: [])
        default:
            return items.contains(root)
        }
    }

    /// Whether a path into a step result (`status`, `body.x`, `headers.set-cookie`, `outputs.token`,
    /// `results[0].headers`) reads a secret: secret headers, secret outputs, or a whole result or headers
    /// object (which holds them). Cookie values (`cookies.NAME`) are not: a short one is a preference
    /// (`lang=en`), and the textual net hides one long enough to be a credential.
    private func resultCarriesSecret(_ path: ArraySlice<PathComponent>, outputs: Set<String>) -> Bool {
        var rest = path
        while let first = rest.first {
            switch first {
            case .member("headers"):
                guard case .member(let name)? = rest.dropFirst().first else { return true }
                return headers.contains(name.lowercased())
            case .member("outputs"):
                guard case .member(let name)? = rest.dropFirst().first else { return !outputs.isEmpty }
                return outputs.contains(name)
            case .member("results"):
                // An item or member result: its own cookies and headers may follow.
                rest = rest.dropFirst()
                if case .index? = rest.first {
                    rest = rest.dropFirst()
                } else if case .wildcard? = rest.first {
                    rest = rest.dropFirst()
                }
                if rest.isEmpty { return true }
            default:
                // `status`, `body…`, `state`, `error…`, `duration`, `attempts`: no secret of reqplan's own.
                return false
            }
        }
        // The whole result: it holds the headers and cookies.
        return true
    }
}
