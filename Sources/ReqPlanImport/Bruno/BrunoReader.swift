import ReqPlanSyntax

/// Reads a Bruno collection folder (`bruno.json` at its root, `.bru` files, `environments/*.bru`) into one
/// plan; or one saved as OpenCollection YAML (`opencollection.yml` at its root, `.yml` files, or one file of it
/// all: `BrunoReader+OpenCollection`), whose files say the same in other words.
///
/// A folder's requests run in their `seq` order, then its subfolders (by their `folder.bru` `seq`, then name),
/// as Bruno's runner sends them, so each request is one step after the one before. `collection.bru` and each
/// `folder.bru` give headers, auth and variables to the requests under them. `{{name}}` variables are inputs
/// (the one environment's values, or the `vars:pre-request` values, their defaults); a `vars:post-response`
/// that reads the response (`id: res.body.id`) makes later `{{id}}` a reference to that step; `assert` lines
/// become `expect:` where the language has the matcher. Scripts and tests are kept as comments.
struct BrunoReader: CollectionReading {
    var diagnostics: [Diagnostic] = []
    var plan: ImportedPlan
    var variables = TemplateVariables()
    let tool = "Bruno"
    var collector = DiagnosticCollector(file: nil)
    /// The collection's folder as its files are named (`api/`), with its `/`.
    private var root = ""

    init(inputs: InputTable) {
        plan = ImportedPlan(origin: "", inputs: inputs)
    }

    /// A folder of the collection: its settings (`folder.bru`, `collection.bru`; `folder.yml`, `opencollection.yml`)
    /// and what is in it.
    struct Folder {
        var path: String
        var settings: BruFile?
        /// The file the settings are written in, for their diagnostics.
        var settingsFile = ""
        var requests: [(source: SourceFile, file: BruFile)] = []
        /// The paths of its subfolders.
        var folders: [String] = []
    }

    /// Reads the collection whose files are `sources`: paths under one root folder, `bruno.json` or
    /// `opencollection.yml` among them, or one OpenCollection YAML file of a whole collection.
    mutating func read(_ sources: [SourceFile]) {
        if let manifest = Self.manifest("opencollection.yml", in: sources) {
            readOpenCollection(sources, manifest: manifest)
            return
        }
        guard let manifest = Self.manifest("bruno.json", in: sources) else {
            if sources.count == 1, let only = sources.first, Self.isOpenCollectionFile(only) {
                readOpenCollection(only)
                return
            }
            var diagnostic = Diagnostic.error(
                .importSourceMalformed,
                "no `bruno.json` or `opencollection.yml`: this is not a Bruno collection folder", at: nil,
                hint: "give the folder that holds the collection's `bruno.json` or `opencollection.yml`")
            diagnostic.file = sources.first?.path
            diagnostics.append(diagnostic)
            return
        }
        root = String(manifest.path.dropLast("bruno.json".count))
        plan.origin = root.isEmpty ? "." : String(root.dropLast())
        if case .success(let value) = CollectionSource.json(of: manifest, hint: "`bruno.json` is JSON"),
            let name = value["name"]?.stringValue
        {
            plan.notes.append("Bruno collection `\(name)`")
        }
        var folders: [String: Folder] = ["": Folder(path: "")]
        var environments: [(name: String, file: BruFile)] = []
        for source in sources where source.path.hasSuffix(".bru") {
            let relative = String(source.path.dropFirst(root.count))
            let parts = relative.split(separator: "/").map(String.init)
            let folder = parts.dropLast().joined(separator: "/")
            let file = BruFile(source.text)
            if parts.first == "environments", parts.count == 2 {
                environments.append((String(parts[1].dropLast(4)), file))
                continue
            }
            Self.addFolders(parts.dropLast(), to: &folders)
            if parts.last == "folder.bru" || (parts.last == "collection.bru" && folder.isEmpty) {
                folders[folder, default: Folder(path: folder)].settings = file
                folders[folder, default: Folder(path: folder)].settingsFile = source.path
            } else {
                folders[folder, default: Folder(path: folder)].requests.append((source, file))
            }
        }
        readEnvironments(environments.sorted { $0.name < $1.name })
        walk(folders)
    }

    /// Adds the folders of a file's path (`a`, `a/b` of `a/b/c.bru`) that `folders` has not yet, each one a
    /// subfolder of the one before.
    static func addFolders(_ parts: ArraySlice<String>, to folders: inout [String: Folder]) {
        var parent = ""
        for part in parts {
            let path = parent.isEmpty ? part : parent + "/" + part
            if folders[path] == nil {
                folders[path] = Folder(path: path)
                folders[parent, default: Folder(path: parent)].folders.append(path)
            }
            parent = path
        }
    }

    /// The file named `name` nearest the root among `sources` (`bruno.json`, `api/bruno.json`).
    private static func manifest(_ name: String, in sources: [SourceFile]) -> SourceFile? {
        sources.filter { $0.path == name || $0.path.hasSuffix("/" + name) }.min { $0.path.count < $1.path.count }
    }

    /// The variables of the one environment, when there is one (`vars`, the names `vars:secret` lists).
    mutating func readEnvironments(_ environments: [(name: String, file: BruFile)]) {
        // One environment is the one the requests were written for; of several, none is chosen.
        guard environments.count == 1, let only = environments.first else {
            if !environments.isEmpty {
                plan.notes.append(
                    "environments not applied (give their values with `--input` or an inputs file): "
                        + environments.map { "`\($0.name)`" }.joined(separator: ", "))
            }
            return
        }
        let secrets = Set((only.file.block("vars:secret")?.text ?? "").split(separator: "\n").map(String.init))
        for entry in only.file.block("vars")?.entries ?? [] where entry.enabled {
            variables.values[entry.key] = TemplateVariables.Variable(
                value: entry.value, secret: secrets.contains(entry.key), origin: "the environment `\(only.name)`")
        }
        for name in secrets where variables.values[name] == nil {
            variables.values[name] = TemplateVariables.Variable(
                value: "", secret: true, origin: "the environment `\(only.name)`")
        }
    }

    /// The requests in Bruno's order: a folder's by `seq` (then file, then place in the file), then its
    /// subfolders, depth first, without recursion.
    mutating func walk(_ folders: [String: Folder]) {
        var stack: [(folder: String, inherited: [BruFile])] = [("", [])]
        var walked: Set<String> = []
        while let (path, inherited) = stack.popLast() {
            guard walked.insert(path).inserted, let folder = folders[path] else { continue }
            let chain = inherited + (folder.settings.map { [$0] } ?? [])
            if let settings = folder.settings {
                let what = path.isEmpty ? "the collection" : "the folder `\(path)`"
                begin(folder.settingsFile)
                plan.notes += scripts(of: settings, what: what)
                addVariables(settings, origin: what)
                finish()
            }
            let requests = folder.requests.enumerated().sorted { first, second in
                let (a, b) = (Self.sequence(first.element.file), Self.sequence(second.element.file))
                let (pathA, pathB) = (first.element.source.path, second.element.source.path)
                return a != b ? a < b : pathA != pathB ? pathA < pathB : first.offset < second.offset
            }.map(\.element)
            for (source, file) in requests {
                begin(source.path)
                if var step = request(file, source: source, inherited: chain) {
                    if !path.isEmpty { step.comments.insert("folder: \(path)", at: 0) }
                    plan.steps.append(step)
                    captureVariables(of: file, step: plan.steps.count - 1)
                }
                finish()
            }
            let subfolders = folder.folders.sorted { first, second in
                let (a, b) = (
                    folders[first]?.settings.map(Self.sequence) ?? .max,
                    folders[second]?.settings.map(Self.sequence) ?? .max
                )
                return a != b ? a < b : first < second
            }
            stack += subfolders.reversed().map { ($0, chain) }
        }
    }

    private static func sequence(_ file: BruFile) -> Int {
        file.block("meta")?["seq"].flatMap { Int($0) } ?? .max
    }

    /// `vars:pre-request` values: the requests after read them.
    mutating func addVariables(_ file: BruFile, origin: String) {
        for entry in file.block("vars:pre-request")?.entries ?? [] where entry.enabled {
            variables.values[entry.key] = TemplateVariables.Variable(
                value: entry.value, secret: false, origin: "`vars:pre-request` of \(origin)")
        }
    }

    /// A `vars:post-response` that reads the response (`token: res.body.token`, `loc: res.headers.location`)
    /// makes later `{{token}}` a reference to the step.
    private mutating func captureVariables(of file: BruFile, step: Int) {
        for entry in file.block("vars:post-response")?.entries ?? [] where entry.enabled {
            if let path = Self.resultPath(entry.value) {
                variables.capture(entry.key, step: step, path: path)
            } else {
                warning(
                    .importSettingNotConverted,
                    "the variable `\(entry.key)` is set from `\(entry.value.prefix(80))`, which is not converted",
                    at: SourceRange(at: SourceLocation(line: entry.line, column: entry.column)), hint: nil)
            }
        }
    }

    /// `res.body.a.b[0]` → `body.a.b[0]`, `res.headers.name` → `headers.name`, `res.status` → `status`.
    static func resultPath(_ expression: String) -> String? {
        let text = expression.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("res."), text.count <= 200 else { return nil }
        let path = String(text.dropFirst(4))
        let allowed = path.allSatisfy { $0.isLetter || $0.isNumber || "._-[]".contains($0) }
        guard allowed, !path.contains(".."),
            path == "status" || path == "body" || path.hasPrefix("body.") || path.hasPrefix("body[")
                || path.hasPrefix("headers.")
        else { return nil }
        return path.hasPrefix("headers.") ? path.lowercased() : path
    }

    // MARK: - Diagnostics

    mutating func begin(_ path: String) {
        collector = DiagnosticCollector(file: path)
    }

    mutating func finish() {
        diagnostics += collector.diagnostics
        collector = DiagnosticCollector(file: nil)
    }

    mutating func warning(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, hint: String?) {
        collector.warning(code, message, at: range, hint: hint)
    }

    mutating func text(_ text: String, secret: Bool) -> PlanText {
        variables.text(text, secret: secret, plan: &plan)
    }
}
