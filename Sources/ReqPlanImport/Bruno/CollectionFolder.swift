import Foundation
import ReqPlanSyntax

/// The files of a collection kept as a folder (Bruno: `bruno.json` and `.bru` files, or `opencollection.yml` and
/// `.yml` files), read through `FileReader` within the folder: a link that leads out of it, or to something that
/// is not a file, is refused (RP0602, RP0601) and nothing behind it is read.
public enum CollectionFolder {
    /// The most files a collection folder may hold.
    public static let maxFiles = 10_000

    /// The collection files under `path` (`.bru` and `bruno.json`; or, in a folder with `opencollection.yml`,
    /// `.yml` files; at any depth, hidden folders and `node_modules` left out), in path order, each named
    /// `path/relative`; and what was refused. `path` may name the folder's `opencollection.yml` or `bruno.json`, or
    /// a file that is a whole collection (Bruno's OpenCollection export): that file alone is read.
    public static func read(atPath path: String) -> (sources: [SourceFile], diagnostics: [Diagnostic]) {
        var shown = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: shown, isDirectory: &isFolder), !isFolder.boolValue {
            let name = String(shown.split(separator: "/").last ?? "")
            guard name == "opencollection.yml" || name == "bruno.json" else {
                switch Importer.readSource(atPath: shown) {
                case .success(let source): return ([source], [])
                case .failure(let diagnostic): return ([], [diagnostic])
                }
            }
            shown = shown == name ? "." : shown == "/" + name ? "/" : String(shown.dropLast(name.count + 1))
        }
        let folder = URL(fileURLWithPath: shown, isDirectory: true)
        // One syntax per collection: a folder of `.yml` files is not also read for `.bru` files, nor the other way.
        let isOpenCollection = FileManager.default.fileExists(atPath: shown + "/opencollection.yml")
        let (manifest, suffix) = isOpenCollection ? ("opencollection.yml", ".yml") : ("bruno.json", ".bru")
        let boundary = FileBoundary(root: folder)
        var sources: [SourceFile] = []
        var refused: [Diagnostic] = []
        var pending = [""]
        let fileManager = FileManager.default
        while let relative = pending.popLast() {
            let current = relative.isEmpty ? shown : shown + "/" + relative
            let names = ((try? fileManager.contentsOfDirectory(atPath: current)) ?? []).sorted()
            for name in names where !name.hasPrefix(".") && name != "node_modules" {
                let inside = relative.isEmpty ? name : relative + "/" + name
                let file = shown + "/" + inside
                guard let type = (try? fileManager.attributesOfItem(atPath: file))?[.type] as? FileAttributeType else {
                    continue
                }
                if type == .typeDirectory {
                    pending.append(inside)
                    continue
                }
                guard name.hasSuffix(suffix) || name == manifest, type == .typeRegular || type == .typeSymbolicLink
                else { continue }
                guard sources.count < maxFiles else {
                    refused.append(
                        Diagnostic(
                            .error, .importSourceMalformed, "`\(shown)` holds more than \(maxFiles) collection files",
                            file: shown))
                    return (sources, refused)
                }
                let read = FileReader.text(
                    atPath: file, origin: .input(boundary), limit: Importer.maxSourceSize, what: "`\(file)`",
                    shownAs: file)
                switch read {
                case .success(let text): sources.append(SourceFile(path: file, text: text))
                case .failure(let failure):
                    let code: DiagnosticCode =
                        failure.isTooLarge
                        ? .fileTooLarge : failure.kind == .outside ? .fileOutsideFolder : .unreadableFile
                    refused.append(Diagnostic(.error, code, failure.text, file: file, hint: failure.hint))
                }
            }
        }
        return (sources.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }, refused)
    }
}
