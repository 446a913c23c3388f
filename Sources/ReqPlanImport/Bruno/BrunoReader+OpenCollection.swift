import ReqPlanSyntax

/// A Bruno collection saved as OpenCollection YAML (Bruno 3; opencollection.com): a folder with
/// `opencollection.yml` at its root (the collection's name and request defaults), a `folder.yml` in each folder,
/// `environments/*.yml` and one `.yml` file per request; or one file of it all (`items` nesting folders and
/// requests, `config.environments`), as Bruno exports it. Each file is composed as plans are (`DataDocument`:
/// size, depth and aliases bounded, errors located), read into the blocks of a `.bru` file
/// (`BruFile+OpenCollection`), and walked as the `.bru` form is.
extension BrunoReader {
    /// Whether `source` is a whole collection in one YAML file: `opencollection:` at the start of a line.
    static func isOpenCollectionFile(_ source: SourceFile) -> Bool {
        source.text.hasPrefix("opencollection:") || source.text.contains("\nopencollection:")
    }

    /// Reads the collection folder whose `opencollection.yml` is `manifest`, its other `.yml` files `sources`.
    mutating func readOpenCollection(_ sources: [SourceFile], manifest: SourceFile) {
        let root = String(manifest.path.dropLast("opencollection.yml".count))
        plan.origin = root.isEmpty ? "." : String(root.dropLast())
        guard let collection = document(manifest) else { return }
        var folders = ["": Folder(path: "")]
        var environments = collectionSettings(collection, source: manifest, into: &folders[""])
        for source in sources where source.path.hasSuffix(".yml") && source.path != manifest.path {
            let parts = source.path.dropFirst(root.count).split(separator: "/").map(String.init)
            let stem = String(parts.last?.dropLast(4) ?? "")
            guard let read = document(source) else { continue }
            guard let node = read else {
                begin(source.path)
                warning(.importOptionNotConverted, "`\(source.path)` is empty; left out", at: nil, hint: nil)
                finish()
                continue
            }
            if parts.first == "environments", parts.count == 2 {
                environments.append(
                    (node["name"]?.text ?? stem, BruFile(openCollectionEnvironment: node, in: source)))
                continue
            }
            Self.addFolders(parts.dropLast(), to: &folders)
            let folder = parts.dropLast().joined(separator: "/")
            if parts.last == "folder.yml" {
                folders[folder]?.settings = BruFile(openCollectionDefaults: node, in: source, name: folder)
                folders[folder]?.settingsFile = source.path
            } else {
                add(node, in: source, name: stem, to: &folders[folder])
            }
        }
        guard !diagnostics.contains(where: { $0.severity == .error }) else { return }
        readEnvironments(environments.sorted { $0.name < $1.name })
        walk(folders)
    }

    /// Reads a collection written whole in `source`: its `items` nest folders (`type: folder`, their own
    /// `items`) and requests; a folder's path is its name under its parent's (made unique: `name (2)`).
    mutating func readOpenCollection(_ source: SourceFile) {
        plan.origin = source.path
        guard let collection = document(source) else { return }
        var folders = ["": Folder(path: "")]
        let environments = collectionSettings(collection, source: source, into: &folders[""])
        // Depth first without recursion; the tree's depth and size are bounded (`DataDocument.tree`).
        var pending: [(items: [YAMLNode], path: String)] = [(collection?["items"]?.items ?? [], "")]
        while let (items, parent) = pending.popLast() {
            for item in items {
                guard item.openCollectionKind == "folder" else {
                    add(item, in: source, name: "untitled", to: &folders[parent])
                    continue
                }
                let name = item["info"]?["name"]?.text ?? "folder"
                var path = parent.isEmpty ? name : parent + "/" + name
                var number = 2
                while folders[path] != nil || path.isEmpty {
                    path = (parent.isEmpty ? name : parent + "/" + name) + " (\(number))"
                    number += 1
                }
                var folder = Folder(path: path)
                folder.settings = BruFile(openCollectionDefaults: item, in: source, name: name)
                folder.settingsFile = source.path
                folders[path] = folder
                folders[parent]?.folders.append(path)
                pending.append((item["items"]?.items ?? [], path))
            }
        }
        guard !diagnostics.contains(where: { $0.severity == .error }) else { return }
        readEnvironments(environments.sorted { $0.name < $1.name })
        walk(folders)
    }

    /// The collection's settings (`request`), put in the root folder; its name as the plan's first note; the
    /// environments of `config.environments`.
    private mutating func collectionSettings(_ collection: YAMLNode?, source: SourceFile, into root: inout Folder?)
        -> [(name: String, file: BruFile)]
    {
        guard let collection else { return [] }
        let name = collection["info"]?["name"]?.text ?? ""
        if !name.isEmpty { plan.notes.append("Bruno collection `\(name)` (OpenCollection YAML)") }
        root?.settings = BruFile(openCollectionDefaults: collection, in: source, name: name)
        root?.settingsFile = source.path
        return (collection["config"]?["environments"]?.items ?? []).map { environment in
            (environment["name"]?.text ?? "", BruFile(openCollectionEnvironment: environment, in: source))
        }
    }

    /// Adds a request item to `folder`: HTTP and GraphQL ones are read, gRPC and WebSocket ones are left out by
    /// the reader with a warning; script and app files are not requests, and anything else is warned of.
    private mutating func add(_ item: YAMLNode, in source: SourceFile, name: String, to folder: inout Folder?) {
        switch item.openCollectionKind {
        case "http", "graphql", "grpc", "websocket":
            folder?.requests.append((source, BruFile(openCollectionItem: item, in: source, name: name)))
        case "script", "app":
            return
        case let kind:
            begin(source.path)
            warning(
                .importOptionNotConverted,
                kind.isEmpty
                    ? "`\(item["info"]?["name"]?.text ?? name)` is not an OpenCollection request (no `info.type`); left out"
                    : "`\(item["info"]?["name"]?.text ?? name)` is an item of type `\(kind)`, not a request; left out",
                at: source.range(of: item),
                hint: "a request file has `info: { type: http }` and `http: { method, url }`")
            finish()
        }
    }

    /// The mapping at the root of `source` (`.some(nil)` for an empty file), composed under the plan reader's
    /// limits; `nil` with the error (RP0002, RP0004, RP0005, RP0006, RP0008) when it cannot be, or RP1401 when
    /// it is a list or a scalar.
    private mutating func document(_ source: SourceFile) -> YAMLNode?? {
        switch DataDocument.tree(source, what: "OpenCollection file", limits: ParseLimits()) {
        case .failure(let failure):
            diagnostics.append(failure.diagnostic)
            return nil
        case .success(nil):
            return .some(nil)
        case .success(let node?):
            guard case .mapping = node else {
                var diagnostic = Diagnostic.error(
                    .importSourceMalformed, "`\(source.path)` is not an OpenCollection file: it is not a mapping",
                    at: source.range(of: node), hint: "an OpenCollection file is a mapping (`info:`, `http:`, …)")
                diagnostic.file = source.path
                diagnostics.append(diagnostic)
                return nil
            }
            return node
        }
    }
}
