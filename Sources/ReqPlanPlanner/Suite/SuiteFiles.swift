import Foundation
import ReqPlanSyntax

/// The plan files of a suite (`reqplan run` and `reqplan validate` with several files or folders).
///
/// The rules (docs/suites.md):
/// - a file given is a plan, whatever its name;
/// - a folder given is walked recursively for files ending in `.yaml` or `.yml`; names starting
///   with `.` (hidden) or `_` (files and folders meant to be included by other plans, such as
///   sub-plans, not run alone), and environments (`NAME.env.yaml`, values for `--env`), are left
///   out, and links to folders are not followed; a link to a file is followed only inside the folder's
///   project (a link in the suite to `../outside/secrets.yaml` or `/proc/self/environ` is refused, RP0602,
///   and nothing behind it is read), and only to a regular file;
/// - paths are written as given (`./` and repeated `/` removed), deduplicated, and sorted by their
///   bytes, so the order, and the parts of `--shard`, do not depend on the order of the arguments.
public struct SuiteFiles: Sendable {
    /// The plan files, in suite order.
    public var files: [String]
    /// Folders that hold no plan file (RP0710), one diagnostic each.
    public var problems: [Diagnostic]

    /// Collects the plan files of `arguments`, files and folders.
    /// - Parameter fileManager: where folders are read.
    public init(_ arguments: [String], fileManager: FileManager = .default) {
        var found: Set<String> = []
        var problems: [Diagnostic] = []
        for argument in arguments {
            let path = Self.normalized(argument)
            var isFolder: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                // A file, or a path that does not exist: reading it reports what is wrong (RP0001).
                found.insert(path)
                continue
            }
            let (inside, refused) = Self.planFiles(in: path, fileManager: fileManager)
            problems += refused
            if inside.isEmpty {
                problems.append(
                    Diagnostic(
                        .error, .noPlans, "no plan files in `\(path)`", file: path,
                        hint: "a folder's plans are its files ending in `.yaml` or `.yml`, at any depth; names "
                            + "starting with `_` or `.` are left out"))
            }
            found.formUnion(inside)
        }
        self.files = found.sorted(by: Self.inOrder)
        self.problems = problems
    }

    /// One plan file, as given (a run of one plan: its path is shown as written).
    public init(file path: String) {
        self.files = [path]
        self.problems = []
    }

    /// Whether `path` is a folder (to tell a suite from a single plan).
    public static func isFolder(_ path: String, fileManager: FileManager = .default) -> Bool {
        var isFolder: ObjCBool = false
        return fileManager.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// The suite order of two paths: by their UTF-8 bytes (the same on every machine and locale).
    public static func inOrder(_ first: String, _ second: String) -> Bool {
        first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    /// `path` without `./` components and repeated or trailing `/`.
    static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// Whether a file name is an environment's (`staging.env.yaml`), values for inputs, not a plan.
    static func isEnvironment(_ name: String) -> Bool {
        name.hasSuffix(".env.yaml") || name.hasSuffix(".env.yml")
    }

    /// Whether a file in a folder is read as a plan: YAML that is not an environment's, or an Arazzo
    /// document in JSON (`NAME.arazzo.json`; other JSON files are descriptions and data).
    static func isPlanName(_ name: String) -> Bool {
        ((name.hasSuffix(".yaml") || name.hasSuffix(".yml")) && !isEnvironment(name)) || name.hasSuffix(".arazzo.json")
    }

    /// The plan files under `folder`, at any depth, as `folder/…` paths; and the links among them that lead
    /// outside the folder's project or to something other than a file, refused.
    private static func planFiles(in folder: String, fileManager: FileManager) -> ([String], [Diagnostic]) {
        var result: [String] = []
        var refused: [Diagnostic] = []
        let boundary = FileBoundary(planFolder: URL(fileURLWithPath: folder, isDirectory: true))
        var pending = [folder]
        while let current = pending.popLast() {
            let names = (try? fileManager.contentsOfDirectory(atPath: current)) ?? []
            for name in names where !name.hasPrefix(".") && !name.hasPrefix("_") {
                let path = current == "." ? name : current + "/" + name
                guard let attributes = try? fileManager.attributesOfItem(atPath: path) else { continue }
                switch attributes[.type] as? FileAttributeType {
                case .typeDirectory?:
                    pending.append(path)
                case .typeRegular?:
                    if isPlanName(name) { result.append(path) }
                case .typeSymbolicLink?:
                    guard isPlanName(name), !isFolder(path, fileManager: fileManager) else { continue }
                    let target = FileBoundary.resolve(path, relativeTo: URL(fileURLWithPath: "."))
                    if !boundary.isInside(target) {
                        refused.append(
                            Diagnostic(
                                .error, .fileOutsideFolder,
                                "`\(path)` is a link to a file outside \(boundary.isProject ? "the project" : "the folder") "
                                    + "(`\(target.path)`); it is not read", file: path,
                                hint: "a suite reads the plans in its folders; a link may lead to another file of "
                                    + "the same project, not out of it"))
                    } else if let kind = FileReader.nonRegularKind(atPath: target.path) {
                        refused.append(
                            Diagnostic(
                                .error, .fileNotFound, "`\(path)` is a link to \(kind), not to a file; it is not read",
                                file: path))
                    } else {
                        result.append(path)
                    }
                default:
                    break
                }
            }
        }
        return (result, refused)
    }
}
