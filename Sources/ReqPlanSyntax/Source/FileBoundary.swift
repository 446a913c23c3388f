import Foundation

/// Where the files a plan names (sub-plans, `body_file`, multipart `file`) may come from: the folder of the
/// plan being validated or run, and below it, unless files outside are allowed (`--allow-files-outside`).
///
/// One rule for `validate`, which checks the paths written literally, and for `run`, which checks the paths
/// computed from `${{ }}` when it reads them.
public struct FileBoundary: Sendable, Hashable {
    /// The top plan's folder, absolute, with symbolic links resolved.
    public let root: String
    /// Whether files outside `root` may be read.
    public let allowOutside: Bool
    /// How the host lets its user allow files outside (the command line's `--allow-files-outside`), named
    /// in the hint of a file outside; nil: the hint names no setting.
    public let outsideSetting: String?

    /// The boundary of the plan file at `planPath`: its folder.
    public init(planFile planPath: String, allowOutside: Bool = false, outsideSetting: String? = nil) {
        self.init(
            root: URL(fileURLWithPath: planPath).deletingLastPathComponent(), allowOutside: allowOutside,
            outsideSetting: outsideSetting)
    }

    /// The boundary of a plan whose folder is `root`.
    public init(root: URL, allowOutside: Bool = false, outsideSetting: String? = nil) {
        self.root = root.standardizedFileURL.resolvingSymlinksInPath().path
        self.allowOutside = allowOutside
        self.outsideSetting = outsideSetting
    }

    /// The hint of a file outside the boundary.
    public var outsideHint: String {
        "a plan reads files in its own folder and below it"
            + (outsideSetting.map { "; pass \($0) to read others" } ?? ", unless files outside are allowed")
    }

    /// `path` as written in a plan whose folder is `directory`: absolute, standardized, symbolic links resolved.
    public static func resolve(_ path: String, relativeTo directory: URL) -> URL {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
        return url.standardizedFileURL.resolvingSymlinksInPath()
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
