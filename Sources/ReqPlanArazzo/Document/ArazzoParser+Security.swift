import ReqPlanPlanner
import ReqPlanSyntax

extension ArazzoParser {
    /// Redocly Respect's `x-security` on a step or a workflow: a list of items, each a security scheme
    /// (`schemeName`, one of the step's source description; or `scheme`, an OpenAPI Security Scheme Object
    /// written inline) and the `values` of its credentials. An item with both or neither is reported and
    /// left out; `inlineOnly` (a step with `x-operation`, which has no source description) refuses
    /// `schemeName`.
    mutating func security(_ node: YAMLNode, inlineOnly: Bool) -> [SecurityItem] {
        var result: [SecurityItem] = []
        for item in list(node, "`x-security`") {
            guard let fields = mapping(item, "an `x-security` item") else { continue }
            checkKeys(fields, ["schemeName", "scheme", "values"], in: "an `x-security` item")
            let itemRange = range(item)
            let name = fields.key("schemeName")
            let inline = fields.key("scheme")
            var scheme: SecurityItem.Scheme
            switch (name, inline) {
            case (_?, let inline?):
                diagnostics.error(
                    .conflictingKeys, "an `x-security` item has both `schemeName` and `scheme`", at: inline.range,
                    hint: "name a scheme of the source description (`schemeName`) or write one (`scheme`), not both")
                continue
            case (nil, nil):
                diagnostics.error(
                    .missingKey, "an `x-security` item has no `schemeName` or `scheme`",
                    at: SourceRange(at: fields.range.start),
                    hint: "name a scheme of the source description (`schemeName: …`) or write one (`scheme: { type: "
                        + "http, scheme: bearer }`)")
                continue
            case (let name?, nil):
                guard let written = fields.value("schemeName").flatMap({ string($0, "`schemeName`") }) else {
                    continue
                }
                if inlineOnly {
                    diagnostics.error(
                        .invalidValue,
                        "`schemeName` names a scheme of the step's source description, and an `x-operation` step has "
                            + "none", at: name.range, hint: "write the scheme itself: `scheme: { type: …, … }`")
                    continue
                }
                scheme = .named(written)
            case (nil, _?):
                scheme = .inline(fields.value("scheme").flatMap { inlineScheme($0) })
            }
            var values: [(name: Located<String>, value: YAMLNode)] = []
            if let node = fields.value("values"), let entries = mapping(node, "`values` of an `x-security` item") {
                values = entries.entries.map { ($0.key, $0.value) }
            }
            result.append(SecurityItem(scheme: scheme, values: values, range: itemRange))
        }
        return result
    }

    /// An OpenAPI Security Scheme Object written in an `x-security` item: what it asks for; nil (reported)
    /// when it cannot be read.
    private mutating func inlineScheme(_ node: YAMLNode) -> APISecurityScheme.Kind? {
        guard let fields = mapping(node, "`scheme` of an `x-security` item") else { return nil }
        guard let type = required(fields, "type", in: "a security scheme").flatMap({ string($0, "`type`") }) else {
            return nil
        }
        switch type.value {
        case "apiKey":
            guard let name = required(fields, "name", in: "an `apiKey` scheme").flatMap({ string($0, "`name`") }),
                let place = required(fields, "in", in: "an `apiKey` scheme").flatMap({ string($0, "`in`") })
            else { return nil }
            guard let location = APISecurityScheme.KeyLocation(rawValue: place.value) else {
                diagnostics.error(
                    .invalidValue, "an `apiKey` scheme is `in: \(place.value)`", at: place.range,
                    hint: "`header`, `query` or `cookie`")
                return nil
            }
            return .apiKey(name: name.value, location: location)
        case "http":
            guard let scheme = required(fields, "scheme", in: "an `http` scheme").flatMap({ string($0, "`scheme`") })
            else { return nil }
            return .http(scheme: scheme.value.lowercased(), bearerFormat: nil)
        case "oauth2":
            return .oauth2(flows: [])
        case "openIdConnect":
            return .openIDConnect(
                url: fields.value("openIdConnectUrl").flatMap { string($0, "`openIdConnectUrl`")?.value } ?? "")
        case "mutualTLS":
            return .mutualTLS
        default:
            let kinds = ["apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"]
            let suggestion = Suggestion.replacement(for: type.value, in: kinds)
            diagnostics.error(
                .invalidValue, "unknown security scheme type `\(type.value)`", at: type.range,
                hint: suggestion?.hint ?? kinds.map { "`\($0)`" }.joined(separator: ", "), fix: suggestion?.fix)
            return nil
        }
    }
}
