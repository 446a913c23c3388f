import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Yams

/// Makes one document of a description split over several files, as Redocly's `bundle` does: the target of
/// each reference to another file (or to a place of the document outside its components) is read as the
/// kind its position calls for (`ObjectKind`), filed under the matching components section with a stable
/// name, and referred to from there; a reference in a position that takes no Reference Object (a tag's
/// `description`) is replaced by its target. Cycles across files end at the component already filed.
///
/// OpenAPIKit has typed external loading (`ExternalLoader`, `externallyDereference`), but it does not do
/// this job here: its loader is a type (`Loader.Type`, static functions), so it cannot carry the plan's
/// file boundary and size limit nor the folder of the file a nested reference was written in (`../x.yaml`
/// in `paths/a.yaml` reaches it as written); a `$ref` where no Reference Object may stand fails the
/// decoding before any loader runs; and it is `async`, where loading a plan's descriptions is not. The
/// bundle is made on the parsed YAML nodes instead, and OpenAPIKit decodes the one document that results.
struct DocumentBundler {
    /// The files read, each parsed once (handed on to whoever reads more of the description).
    private(set) var files: DescriptionFiles
    private let root: URL
    private let rootPath: String
    /// Whether the document is Swagger 2.0 (its sections are `definitions`, `parameters`, `responses`).
    private var swagger2 = false
    /// `section file#pointer` → the root-relative reference it became.
    private var imported: [String: String] = [:]
    /// Components brought in, by section, in order.
    private var added: [String: [(name: String, node: Node)]] = [:]
    /// Names in use, by section (the document's own and those brought in).
    private var taken: [String: Set<String>] = [:]
    /// References being inlined, to refuse one that contains itself.
    private var inlining: [String] = []
    /// The tokens of the node being walked, in its file's document.
    private var pointer: [String] = []
    /// The schemas being walked that declare `$defs`: their file, pointer and names, innermost last.
    private var defsScopes: [(file: String, pointer: [String], names: Set<String>)] = []

    init(root: URL, boundary: FileBoundary, maxFileSize: Int) {
        self.init(root: root, files: DescriptionFiles(boundary: boundary, maxFileSize: maxFileSize, root: root))
    }

    /// A bundler that starts from files already read.
    init(root: URL, files: DescriptionFiles) {
        self.root = root.standardizedFileURL
        self.rootPath = self.root.path
        self.files = files
    }

    /// The root document with every reference to another file, or to a place outside its components,
    /// turned into a reference to one of its own components or replaced by its target.
    /// - Parameter pruned: the root document to bundle instead of the file's (a part of it, as
    ///   `DescriptionOutline` keeps), with the file's text; references still resolve in the file.
    mutating func bundle(_ pruned: (document: Node, data: Data)? = nil) throws -> Node {
        let data = try pruned?.data ?? files.data(root)
        let document = try pruned?.document ?? files.node(root, data: data)
        guard case .mapping(let mapping) = document else { return document }
        swagger2 = mapping.first { $0.key.string == "swagger" } != nil
        guard Self.mayNeedBundling(data, swagger2: swagger2) else { return document }
        for section in Set(ObjectKind.componentsSections.values.compactMap { $0.section(swagger2: swagger2) }) {
            taken[section] = Set(Self.section(section, of: document, swagger2: swagger2).keys)
        }
        let walked = try walk(document, as: .document, in: root) ?? document
        return added.isEmpty ? walked : joined(walked)
    }

    /// False if every `$ref` in the text is followed by a quoted value naming a component of the document
    /// itself, written as JSON and YAML usually write it (`"$ref": "#/components/…"`); true for anything
    /// else, which `bundle` then walks. Reading 5 MB of text this way takes a few milliseconds; walking its
    /// nodes, about 80 (BENCHMARKS.md, "OpenAPI").
    static func mayNeedBundling(_ data: Data, swagger2: Bool = false) -> Bool {
        let prefixes = (swagger2 ? ["#/definitions/", "#/parameters/", "#/responses/"] : ["#/components/"]).map {
            Array($0.utf8)
        }
        return KeyScan.any("$ref", in: data) { occurrence, bytes in
            guard case .key(let value) = occurrence, value < bytes.count, KeyScan.isQuote(bytes[value]) else {
                return true
            }
            return !prefixes.contains { prefix in
                value + prefix.count < bytes.count && prefix.indices.allSatisfy { bytes[value + 1 + $0] == prefix[$0] }
            }
        }
    }

    // MARK: Walking

    /// `node`, an object of `kind` in `file`, with its references bundled; nil if nothing changed.
    private mutating func walk(_ node: Node, as kind: ObjectKind, in file: URL) throws -> Node? {
        if kind == .skipped { return nil }
        if let reference = node.referenceValue {
            return try self.reference(reference, node: node, as: kind, in: file)
        }
        let isSchema = kind == .schema || kind == .definition(.schema)
        if case .sequence = node, isSchema {
            // `items` as a list of schemas (JSON Schema draft 4, Swagger 2.0).
            return try node.replacingChildren { key, item in
                pointer.append(key)
                defer { pointer.removeLast() }
                return try walk(item, as: .schema, in: file)
            }
        }
        var scoped = false
        if isSchema, case .mapping(let mapping) = node,
            case .mapping(let definitions)? = mapping.first(where: { $0.key.string == "$defs" })?.value
        {
            defsScopes.append((file.standardizedFileURL.path, pointer, Set(definitions.compactMap(\.key.string))))
            scoped = true
        }
        defer { if scoped { defsScopes.removeLast() } }
        return try node.replacingChildren { key, child in
            pointer.append(key)
            defer { pointer.removeLast() }
            return try walk(child, as: kind.child(key, swagger2: swagger2), in: file)
        }
    }

    /// `node`, the target of a reference, walked from its own place.
    private mutating func walk(_ node: Node, as kind: ObjectKind, at target: ReferenceTarget) throws -> Node? {
        let saved = pointer
        pointer = target.tokens
        defer { pointer = saved }
        return try walk(node, as: kind, in: target.file)
    }

    /// A reference to `#/$defs/Name` that the document's root does not hold, read in the innermost schema
    /// around it that declares `Name` under `$defs`: JSON Schema resolves it there when that schema is a
    /// resource of its own (`$id`), and descriptions made from JSON Schemas keep such references after
    /// losing the `$id` (Mistral's). Any other target is returned as it is.
    private mutating func scoped(_ target: ReferenceTarget, in file: URL) throws -> ReferenceTarget {
        let path = file.standardizedFileURL.path
        guard target.tokens.count >= 2, target.tokens[0] == "$defs", target.file.path == path,
            let scope = defsScopes.last(where: {
                $0.file == path && pointer.starts(with: $0.pointer) && $0.names.contains(target.tokens[1])
            }),
            try files.node(target.file)["$defs"] == nil
        else { return target }
        return ReferenceTarget(file: target.file, tokens: scope.pointer + target.tokens)
    }

    /// What a `$ref` written in `file` at a position of `kind` becomes; nil when it stays as it is.
    private mutating func reference(_ reference: String, node: Node, as kind: ObjectKind, in file: URL) throws
        -> Node?
    {
        let target = try scoped(ReferenceTarget(reference, in: file), in: file)
        if kind == .opaque, target.file.path == file.standardizedFileURL.path { return nil }
        if let section = kind.section(swagger2: swagger2) {
            let bundled = try componentReference(target, written: reference, as: kind, section: section)
            return bundled == reference ? nil : Self.node(node, referringTo: bundled)
        }
        // No Reference Object here (or a path item): the target takes the reference's place.
        guard !inlining.contains(target.key) else {
            throw APIDescriptionLoadError(
                "reference `\(reference)` in `\(files.display(file.path))` contains itself; it cannot be inlined "
                    + "where OpenAPI takes no reference")
        }
        inlining.append(target.key)
        defer { inlining.removeLast() }
        let resolved = try resolve(target, written: reference)
        return try walk(resolved, as: kind, at: target) ?? resolved
    }

    /// The root-relative reference (`#/components/parameters/limit`) for a target read as `kind`, filing
    /// it under `section` the first time.
    private mutating func componentReference(
        _ target: ReferenceTarget, written: String, as kind: ObjectKind, section: String, hops: Int = 0
    ) throws -> String {
        let path = swagger2 ? [section] : ["components", section]
        if target.file.path == rootPath, target.tokens.count == path.count + 1,
            Array(target.tokens.prefix(path.count)) == path
        {
            return target.pointer
        }
        let key = section + " " + target.key
        if let known = imported[key] { return known }
        let resolved = try resolve(target, written: written)
        // A reference to a reference: follow it (a component that is only a reference cannot be decoded
        // in OpenAPI 3.0).
        if let inner = resolved.referenceValue, kind != .schema || Self.count(resolved) == 1 {
            guard hops < 64 else {
                throw APIDescriptionLoadError("reference `\(written)` leads to more than 64 references in a row")
            }
            let next = try ReferenceTarget(inner, in: target.file)
            let result = try componentReference(next, written: inner, as: kind, section: section, hops: hops + 1)
            imported[key] = result
            return result
        }
        let name = uniqueName(for: target, in: section)
        let bundled = "#/" + (path + [name]).joined(separator: "/")
        imported[key] = bundled
        added[section, default: []].append((name, Node("")))
        let position = added[section, default: []].count - 1
        let body = try walk(resolved, as: kind, at: target) ?? resolved
        added[section]?[position].node = body
        return bundled
    }

    private mutating func resolve(_ target: ReferenceTarget, written: String) throws -> Node {
        let document = try files.node(target.file)
        return try target.resolve(in: document, reference: written, name: files.display(target.file.path))
    }

    // MARK: Names and the result

    /// A name for a component: the pointer's last token (`#/Pet` is `Pet`), or the file's name without its
    /// extension for a whole file; `-2`, `-3`… added when another target has it.
    private mutating func uniqueName(for target: ReferenceTarget, in section: String) -> String {
        let stem = target.file.deletingPathExtension().lastPathComponent
        var base = target.tokens.last ?? stem
        if base.isEmpty || base.allSatisfy(\.isNumber) { base = stem + (base.isEmpty ? "" : "_" + base) }
        base = String(base.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
        var name = base
        var suffix = 2
        while taken[section, default: []].contains(name) {
            name = "\(base)-\(suffix)"
            suffix += 1
        }
        taken[section, default: []].insert(name)
        return name
    }

    /// The document with the components brought in added to their sections. Built as lists of pairs:
    /// `Node.Mapping`'s subscript finds a key by a linear search that resolves each key's tag, which made
    /// adding 2,500 components take seconds.
    private func joined(_ document: Node) -> Node {
        guard case .mapping(let mapping) = document else { return document }
        var top = mapping.map { ($0.key, $0.value) }
        var components: [(Node, Node)] = []
        var componentsStyle = (mapping.tag, mapping.style, mapping.mark)
        if !swagger2, let index = top.firstIndex(where: { $0.0.string == "components" }),
            case .mapping(let existing) = top[index].1
        {
            components = existing.map { ($0.key, $0.value) }
            componentsStyle = (existing.tag, existing.style, existing.mark)
        }
        for (section, entries) in added.sorted(by: { $0.key < $1.key }) {
            let added = entries.map { (Node($0.name), $0.node) }
            if swagger2 {
                Self.append(added, to: section, in: &top)
            } else {
                Self.append(added, to: section, in: &components)
            }
        }
        if !swagger2 {
            let node = Node.mapping(Node.Mapping(components, componentsStyle.0, componentsStyle.1, componentsStyle.2))
            if let index = top.firstIndex(where: { $0.0.string == "components" }) {
                top[index].1 = node
            } else {
                top.append((Node("components"), node))
            }
        }
        return .mapping(Node.Mapping(top, mapping.tag, mapping.style, mapping.mark))
    }

    /// `entries` added to the mapping under `section` in `pairs` (made when missing).
    private static func append(_ entries: [(Node, Node)], to section: String, in pairs: inout [(Node, Node)]) {
        guard let index = pairs.firstIndex(where: { $0.0.string == section }) else {
            pairs.append((Node(section), .mapping(Node.Mapping(entries))))
            return
        }
        guard case .mapping(let existing) = pairs[index].1 else {
            pairs[index].1 = .mapping(Node.Mapping(entries))
            return
        }
        pairs[index].1 = .mapping(
            Node.Mapping(existing.map { ($0.key, $0.value) } + entries, existing.tag, existing.style, existing.mark))
    }

    private static func section(_ name: String, of document: Node, swagger2: Bool) -> [String: Node] {
        let holder = swagger2 ? document : document["components"]
        guard case .mapping(let mapping)? = holder?[name] else { return [:] }
        var entries: [String: Node] = [:]
        for (key, value) in mapping { entries[key.string ?? ""] = value }
        return entries
    }

    private static func count(_ node: Node) -> Int {
        if case .mapping(let mapping) = node { return mapping.count }
        return 0
    }

    /// `node` (a Reference Object) with its `$ref` replaced, its other keys kept.
    private static func node(_ node: Node, referringTo target: String) -> Node {
        guard case .mapping(let mapping) = node else { return node }
        let pairs = mapping.map { ($0.key, $0.key.string == "$ref" ? Node(target) : $0.value) }
        return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
    }
}
