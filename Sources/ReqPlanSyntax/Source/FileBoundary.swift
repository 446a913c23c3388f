import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the files a plan names (sub-plans, `body_file`, multipart `file`) may come from: the plan's
/// **project**, the nearest folder at or above the plan's own that holds `.git` or `.reqplan` (a file or a
/// folder), and everything below it; without such a folder, the plan's own folder and below. Files
/// elsewhere are refused unless allowed (`--allow-files-outside`).
///
/// So plans in sibling folders share a sub-plan (`file: ../shared/login.yaml`) without any option, while a
/// plan from elsewhere cannot read `~/.ssh/id_rsa` as a `body_file`. One rule for `validate`, which checks
/// the paths written literally, and for `run`, which checks the paths computed from `${{ }}` when it reads
/// them.
public struct FileBoundary: Sendable, Hashable {
    /// The names that mark a project's root folder.
    public static let projectMarkers = [".git", ".reqplan"]

    /// The project's root folder (or the top plan's folder), absolute, with symbolic links resolved.
    public let root: String
    /// Whether `root` is a project's root (it holds a marker), rather than the plan's own folder.
    public let isProject: Bool
    /// Whether files outside `root` may be read.
    public let allowOutside: Bool
    /// How the host lets its user allow files outside (the command line's `--allow-files-outside`), named
    /// in the hint of a file outside; nil: the hint names no setting.
    public let outsideSetting: String?

    /// The boundary of the plan file at `planPath`: its project, or its folder.
    public init(planFile planPath: String, allowOutside: Bool = false, outsideSetting: String? = nil) {
        self.init(
            planFolder: URL(fileURLWithPath: planPath).deletingLastPathComponent(), allowOutside: allowOutside,
            outsideSetting: outsideSetting)
    }

    /// The boundary of a plan whose folder is `folder`: its project, or the folder itself.
    public init(planFolder folder: URL, allowOutside: Bool = false, outsideSetting: String? = nil) {
        let resolved = Self.resolved(folder)
        let project = Self.projectRoot(above: resolved)
        self.init(
            root: (project ?? resolved).path, isProject: project != nil, allowOutside: allowOutside,
            outsideSetting: outsideSetting)
    }

    /// The boundary `root` and below, whatever markers there are.
    public init(root: URL, allowOutside: Bool = false, outsideSetting: String? = nil) {
        self.init(
            root: Self.resolved(root).path, isProject: false,
            allowOutside: allowOutside, outsideSetting: outsideSetting)
    }

    private init(root: String, isProject: Bool, allowOutside: Bool, outsideSetting: String?) {
        self.root = root
        self.isProject = isProject
        self.allowOutside = allowOutside
        self.outsideSetting = outsideSetting
    }

    /// The nearest folder at or above `folder` (absolute, links resolved) that holds a project marker.
    public static func projectRoot(above folder: URL) -> URL? {
        var current = folder
        while true {
            for marker in projectMarkers
            where FileManager.default.fileExists(atPath: current.appendingPathComponent(marker).path) {
                return current
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path || current.path == "/" { return nil }
            current = parent
        }
    }

    /// What the boundary is, in messages: "the plan's project" or "the plan's folder".
    public var scope: String { isProject ? "the plan's project" : "the plan's folder" }

    /// The hint of a file outside the boundary.
    public var outsideHint: String {
        let rule =
            isProject
            ? "a plan reads files in its project (the folder above it that holds `.git` or `.reqplan`) and below it"
            : "a plan reads files in its own folder and below it (or, in a project, anywhere in the project: "
                + "mark its root folder with `.git` or `.reqplan`)"
        return rule + (outsideSetting.map { "; pass \($0) to read others" } ?? ", unless files outside are allowed")
    }

    /// `path` as written in a plan whose folder is `directory`: absolute, standardized, symbolic links resolved
    /// (every one, as `realpath(3)` does, when the file exists; `FileReader` reads it the same way).
    public static func resolve(_ path: String, relativeTo directory: URL) -> URL {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
        return resolved(url)
    }

    /// `url` absolute and standardized, with every symbolic link resolved when it exists.
    static func resolved(_ url: URL) -> URL {
        let standard = url.standardizedFileURL
        guard let real = realpath(standard.path, nil) else { return standard.resolvingSymlinksInPath() }
        defer { free(real) }
        return URL(fileURLWithPath: String(cString: real))
    }

    /// Whether a resolved file may be read: it is inside `root`, or files outside are allowed.
    public func permits(_ resolved: URL) -> Bool {
        allowOutside || isInside(resolved)
    }

    /// Whether a resolved file is `root` itself or below it.
    public func isInside(_ resolved: URL) -> Bool {
        let path = resolved.path
        return path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// The display path of a file named `path` in a file shown as `including`: joined to its folder and
    /// normalized (`plans/a/../shared/login.yaml` → `plans/shared/login.yaml`), so diagnostics name files
    /// the way the command line named the top plan.
    public static func displayPath(of path: String, includedFrom including: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        let folder = (including as NSString).deletingLastPathComponent
        return normalize(folder.isEmpty ? path : folder + "/" + path)
    }

    /// Removes `.` components and folds `name/..` pairs (keeping leading `..`).
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            if part == "..", absolute, parts.isEmpty { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
