import Foundation
import OpenAPIKit
import ReqPlanPlanner
import Yams

/// Reads a description's security (`components.securitySchemes`, the document's `security` and each
/// operation's) from the bundled OpenAPI 3 document's nodes, not through OpenAPIKit, which refuses the whole
/// description for one bad entry (a requirement naming a scheme that `securitySchemes` lacks, a scope that is
/// not a string, a scheme of an unknown `type`). What is valid is kept and the rest dropped:
/// - a scheme of an unknown `type`, or without what its type needs (`name` and `in` of an API key, `scheme`
///   of `http`, `openIdConnectUrl`), is left out of `schemes`; an OAuth 2.0 flow of an unknown kind is too;
/// - a scope that is not text (a list, an object, null) is left out;
/// - a requirement naming a scheme that `schemes` lacks can never be satisfied, so it is left out of its list,
///   unless every requirement of the list is: they are then kept as written, so that the list does not read as
///   asking for nothing (`security: []`), and a check can name the missing schemes;
/// - a `security` that is not a list, or a list with no object in it, reads as not given.
///
/// OpenAPIKit then decodes the document without these parts (`removed(from:)`).
struct DescriptionSecurity {
    /// The schemes, by name.
    let schemes: [String: APISecurityScheme]
    /// The document's requirements (`security`); empty when it gives none.
    let requirements: [APISecurityRequirement]
    private let root: Node

    /// Reads the security of `root`, a bundled OpenAPI 3 document (Swagger 2.0 converted).
    init(_ root: Node) {
        self.root = root
        var schemes: [String: APISecurityScheme] = [:]
        let section = Self.value(Self.value(root, "components"), "securitySchemes").map { Self.resolved($0, in: root) }
        if case .mapping(let mapping)? = section {
            for (key, value) in mapping {
                guard let name = Self.text(key), schemes[name] == nil,
                    let scheme = Self.scheme(named: name, Self.resolved(value, in: root))
                else { continue }
                schemes[name] = scheme
            }
        }
        self.schemes = schemes
        requirements = Self.requirements(Self.value(root, "security"), schemes: schemes) ?? []
    }

    /// The requirements an operation gives (`security`), nil when it gives none.
    func requirements(of operation: Node) -> [APISecurityRequirement]? {
        Self.requirements(Self.value(operation, "security"), schemes: schemes)
    }

    /// The requirements of each operation of `paths` that gives its own, by `APIOperation.label` (the path as
    /// OpenAPIKit writes it).
    func requirementsByOperation() -> [String: [APISecurityRequirement]] {
        guard case .mapping(let paths)? = Self.value(root, "paths") else { return [:] }
        var found: [String: [APISecurityRequirement]] = [:]
        for (key, item) in paths {
            guard let path = Self.text(key) else { continue }
            let label = OpenAPI.Path(rawValue: path).rawValue
            for (method, operation) in Self.operations(of: Self.resolved(item, in: root)) {
                guard let requirements = requirements(of: Self.resolved(operation, in: root)) else { continue }
                found[method.uppercased() + " " + label] = requirements
            }
        }
        return found
    }

    // MARK: Reading

    private static func scheme(named name: String, _ node: Node) -> APISecurityScheme? {
        guard let type = text(value(node, "type")) else { return nil }
        let kind: APISecurityScheme.Kind
        switch type.lowercased() {
        case "apikey":
            guard let key = text(value(node, "name")), let place = text(value(node, "in")),
                let location = APISecurityScheme.KeyLocation(rawValue: place.lowercased())
            else { return nil }
            kind = .apiKey(name: key, location: location)
        case "http":
            guard let scheme = text(value(node, "scheme")), !scheme.isEmpty else { return nil }
            kind = .http(scheme: scheme.lowercased(), bearerFormat: text(value(node, "bearerFormat")))
        case "oauth2":
            var flows: [APIOAuthFlow] = []
            if case .mapping(let mapping)? = value(node, "flows") {
                var seen: Set<APIOAuthFlow.Kind> = []
                for (key, flow) in mapping {
                    guard let name = text(key), let flowKind = APIOAuthFlow.Kind(rawValue: name),
                        seen.insert(flowKind).inserted, case .mapping = flow
                    else { continue }
                    flows.append(
                        APIOAuthFlow(
                            kind: flowKind, tokenURL: text(value(flow, "tokenUrl")),
                            authorizationURL: text(value(flow, "authorizationUrl")),
                            refreshURL: text(value(flow, "refreshUrl")), scopes: names(value(flow, "scopes"))))
                }
            }
            kind = .oauth2(flows: flows)
        case "openidconnect":
            guard let url = text(value(node, "openIdConnectUrl")) else { return nil }
            kind = .openIDConnect(url: url)
        case "mutualtls":
            kind = .mutualTLS
        default:
            return nil
        }
        return APISecurityScheme(name: name, kind: kind, description: text(value(node, "description")))
    }

    /// A list of requirements, read as the type comments say; nil when it is not given or not a list.
    private static func requirements(_ node: Node?, schemes: [String: APISecurityScheme]) -> [APISecurityRequirement]? {
        guard case .sequence(let items)? = node else { return nil }
        var all: [APISecurityRequirement] = []
        var satisfiable: [APISecurityRequirement] = []
        for item in items {
            guard case .mapping(let mapping) = item else { continue }
            var named: [APISecurityRequirement.Scheme] = []
            var seen: Set<String> = []
            for (key, scopes) in mapping {
                guard let name = text(key), seen.insert(name).inserted else { continue }
                named.append(APISecurityRequirement.Scheme(name: name, scopes: texts(scopes)))
            }
            let requirement = APISecurityRequirement(schemes: named)
            all.append(requirement)
            if named.allSatisfy({ schemes[$0.name] != nil }) { satisfiable.append(requirement) }
        }
        if all.isEmpty { return items.isEmpty ? [] : nil }
        return satisfiable.isEmpty ? all : satisfiable
    }

    /// The operations of a path item: each method's, then `additionalOperations` (OpenAPI 3.2).
    private static func operations(of item: Node) -> [(method: String, operation: Node)] {
        guard case .mapping(let mapping) = item else { return [] }
        var found: [(method: String, operation: Node)] = []
        for (key, value) in mapping {
            guard let name = key.string else { continue }
            if DocumentPruning.methods.contains(name) {
                found.append((name, value))
            } else if name == "additionalOperations", case .mapping(let additional) = value {
                for (method, operation) in additional {
                    if let method = method.string { found.append((method, operation)) }
                }
            }
        }
        return found
    }

    // MARK: Nodes

    /// The value under `key` of a mapping (keys compared as text).
    private static func value(_ node: Node?, _ key: String) -> Node? {
        guard case .mapping(let mapping)? = node else { return nil }
        return mapping.first { $0.key.string == key }?.value
    }

    /// `node`, or what its `$ref` to a place in `root` names, a few references in a row at most (the bundled
    /// document refers only to itself); `node` when the reference leads nowhere.
    private static func resolved(_ node: Node, in root: Node) -> Node {
        var current = node
        var hops = 0
        while let reference = current.referenceValue, reference.hasPrefix("#"), hops < 16 {
            let tokens = ReferenceTarget.tokens(ofPointer: String(reference.dropFirst()))
            let target = ReferenceTarget(file: URL(fileURLWithPath: "/"), tokens: tokens)
            guard let next = try? target.resolve(in: root, reference: reference, name: "") else { return current }
            current = next
            hops += 1
        }
        return current
    }

    /// A scalar's text; nil for null and for lists and objects.
    private static func text(_ node: Node?) -> String? {
        guard case .scalar(let scalar)? = node, NSNull.construct(from: scalar) == nil else { return nil }
        return scalar.string
    }

    /// The texts of a list (scopes), each once, in order; what is not text is left out.
    private static func texts(_ node: Node) -> [String] {
        guard case .sequence(let items) = node else { return [] }
        var seen: Set<String> = []
        return items.compactMap { item in text(item).flatMap { seen.insert($0).inserted ? $0 : nil } }
    }

    /// The keys of a mapping (declared scopes), each once, in order.
    private static func names(_ node: Node?) -> [String] {
        guard case .mapping(let mapping)? = node else { return [] }
        var seen: Set<String> = []
        return mapping.compactMap { key, _ in text(key).flatMap { seen.insert($0).inserted ? $0 : nil } }
    }

    // MARK: For OpenAPIKit

    /// `root` without what this type reads instead of OpenAPIKit: the document's `security`,
    /// `components.securitySchemes`, and the `security` of each operation (in `paths`, `webhooks`,
    /// `components.pathItems` and callbacks), so that a bad entry there does not refuse the description.
    static func removed(from root: Node) -> Node {
        let top = removing("security", from: root) ?? root
        return top.replacingChildren { key, value -> Node? in
            switch key {
            case "paths", "webhooks":
                return value.replacingChildren { _, item in withoutOperationSecurity(item, depth: 0) }
            case "components":
                let components = removing("securitySchemes", from: value)
                let items = (components ?? value).replacingChildren { section, items -> Node? in
                    guard section == "pathItems" else { return nil }
                    return items.replacingChildren { _, item in withoutOperationSecurity(item, depth: 0) }
                }
                return items ?? components
            default:
                return nil
            }
        } ?? top
    }

    /// A path item without its operations' `security` (and their callbacks'); nil when nothing changed.
    private static func withoutOperationSecurity(_ item: Node, depth: Int) -> Node? {
        guard depth < 16 else { return nil }
        func operation(_ node: Node) -> Node? {
            let own = removing("security", from: node)
            let inner = (own ?? node).replacingChildren { key, callbacks -> Node? in
                guard key == "callbacks" else { return nil }
                return callbacks.replacingChildren { _, callback in
                    callback.replacingChildren { _, item in withoutOperationSecurity(item, depth: depth + 1) }
                }
            }
            return inner ?? own
        }
        return item.replacingChildren { key, value -> Node? in
            if DocumentPruning.methods.contains(key) { return operation(value) }
            guard key == "additionalOperations" else { return nil }
            return value.replacingChildren { _, node in operation(node) }
        }
    }

    /// A mapping without `key`; nil when it has no such key (or is not a mapping).
    private static func removing(_ key: String, from node: Node) -> Node? {
        guard case .mapping(let mapping) = node, mapping.contains(where: { $0.key.string == key }) else { return nil }
        let pairs = mapping.filter { $0.key.string != key }.map { ($0.key, $0.value) }
        return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
    }
}
