#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written whole or not at all: the reports of a run, the cookie jar.
///
/// A reader never sees half a file, and an older file is replaced at once: the text goes to a file
/// of its own in the target's folder, which a `rename` then puts in place. On Linux that file has
/// no name while it is written (`O_TMPFILE`), and gets one only when complete (`linkat` through
/// `/proc/self/fd`), so a process that dies while writing (SIGKILL, a crash) leaves nothing behind.
///
/// A file that cannot be written fails with the reason in plain words, naming the path at fault:
/// a parent that is a file, a folder where the file should be, no permission, no space left.
///
/// What is not a file is written to, not replaced: a descriptor the process has (`/dev/stdout`, `/dev/stderr`,
/// `/dev/fd/N`, `/proc/self/fd/N`) gets the text on that descriptor, where the command's other output goes; a
/// character device or a FIFO named as itself (`/dev/null`, `mkfifo`'s) is opened and written, a FIFO without a
/// reader refused at once and a device's failure (`/dev/full`: no space left) said. A block device is refused.
/// (Replaced by a rename, `/dev/stdout` became a file of its own, and run as root, `--report json:/dev/full`
/// put the report in place of the device.) A symbolic link that leads to a device is replaced, like any link,
/// not written through: a link committed as `reports/run.json` cannot point a CI job's report at a disk. The
/// standard input (`/dev/stdin`, `/dev/fd/0`) is refused: as root, the rename replaced the `/dev/stdin` link.
public enum OutputFile {
    /// Why a file could not be written, in plain words naming the path at fault.
    public struct WriteError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, e.g. "`out` is a file, not a folder" or "no space left on the device".
        public var reason: String
        /// The reason.
        public var description: String { reason }

        /// A failure for `reason`.
        public init(_ reason: String) {
            self.reason = reason
        }

        /// The failure of an operation on `path` with the system's error `code`.
        static func system(_ code: Int32, path: String) -> WriteError {
            switch code {
            case EACCES, EPERM: WriteError("permission denied to write in `\(OutputFile.folder(of: path))`")
            case EROFS: WriteError("`\(OutputFile.folder(of: path))` is on a read-only file system")
            case EISDIR: WriteError("`\(path)` is a folder")
            default: WriteError(OutputFile.words(for: code))
            }
        }
    }

    /// Writes `text` to the file at `path`, whole or not at all, replacing the file there.
    /// - Parameters:
    ///   - text: what the file holds, as UTF-8.
    ///   - path: the file; a relative path is taken from the current folder.
    ///   - permissions: the new file's permissions, before the process's umask (`0o600` for credentials).
    ///   - creatingFolders: whether missing folders on the way are created (else a missing one fails).
    /// - Throws: a `WriteError` naming the reason and the path at fault; nothing is left behind.
    public static func write(
        _ text: String, toPath path: String, permissions: mode_t = 0o644, creatingFolders: Bool = true
    ) throws(WriteError) {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw WriteError("`\(path)` names a folder, not a file") }
        if let descriptor = descriptor(named: path) {
            // The standard input is read, not written (and `/dev/stdin`, a link, would be replaced by the file).
            guard descriptor != STDIN_FILENO else {
                throw WriteError(
                    "`\(path)` is the standard input, which is read, not written: name `/dev/stdout` or a file")
            }
            return try writeStream(Array(text.utf8), to: descriptor, path: path)
        }
        var named = stat()
        if lstat(path, &named) == 0 {
            switch named.st_mode & S_IFMT {
            case S_IFCHR, S_IFIFO:
                return try writeDevice(Array(text.utf8), path: path, fifo: named.st_mode & S_IFMT == S_IFIFO)
            case S_IFBLK: throw WriteError("`\(path)` is a block device, not a file")
            case S_IFSOCK: throw WriteError("`\(path)` is a socket, not a file")
            default: break
            }
        }
        let folder = folder(of: path)
        try prepare(folder: folder, creating: creatingFolders)
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { throw WriteError("`\(path)` is a folder") }
        let bytes = Array(text.utf8)
        #if os(Linux)
            if try writeUnnamed(bytes, toPath: path, folder: folder, permissions: permissions) { return }
        #endif
        try writeNamed(bytes, toPath: path, folder: folder, permissions: permissions)
    }

    /// The system's error `code` in plain words ("no space left on the device").
    public static func words(for code: Int32) -> String {
        switch code {
        case ENOSPC: "no space left on the device"
        case EDQUOT: "the disk quota is used up"
        case EACCES, EPERM: "permission denied"
        case EROFS: "the file system is read-only"
        case EFBIG: "the file would be larger than the system allows"
        case EPIPE: "the other end of the pipe is closed"
        case EIO: "an input/output error"
        case ENAMETOOLONG: "a name is too long"
        default: String(cString: strerror(code))
        }
    }

    // MARK: - Folders

    /// The folder of `path` as written (`.` for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Checks that `folder` and every folder above it are folders, creating missing ones when asked.
    private static func prepare(folder: String, creating: Bool) throws(WriteError) {
        var status = stat()
        if stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return }
        // Walk down from the top, so the message names the first part that is not a folder.
        var prefix = folder.hasPrefix("/") ? "/" : ""
        for part in folder.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            if stat(prefix, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else {
                    throw WriteError("`\(prefix)` is a file, not a folder")
                }
                continue
            }
            guard errno == ENOENT else { throw WriteError("cannot reach `\(prefix)`: \(words(for: errno))") }
            guard creating else { throw WriteError("the folder `\(prefix)` does not exist") }
            if mkdir(prefix, 0o777) != 0, errno != EEXIST {
                throw WriteError("cannot create the folder `\(prefix)`: \(words(for: errno))")
            }
        }
    }

    // MARK: - Writing

    #if os(Linux)
        /// Writes `bytes` to a file without a name in `folder`, then names it `path`.
        /// - Returns: false when the file system has no unnamed files (`O_TMPFILE`) or `/proc` is not
        ///   mounted: the caller writes through a named temporary file instead.
        private static func writeUnnamed(_ bytes: [UInt8], toPath path: String, folder: String, permissions: mode_t)
            throws(WriteError) -> Bool
        {
            // O_TMPFILE is a macro Swift does not import; it is __O_TMPFILE with O_DIRECTORY.
            let descriptor = open(folder, __O_TMPFILE | O_DIRECTORY | O_WRONLY | O_CLOEXEC, permissions)
            guard descriptor >= 0 else {
                if [EISDIR, EOPNOTSUPP, EINVAL].contains(errno) { return false }
                throw WriteError.system(errno, path: path)
            }
            defer { close(descriptor) }
            // Until it is linked below, a process killed now leaves nothing: the file has no name.
            try writeAll(bytes, to: descriptor, path: path)
            let unnamed = "/proc/self/fd/\(descriptor)"
            if linkat(AT_FDCWD, unnamed, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 { return true }
            guard errno == EEXIST else {
                if errno == ENOENT { return false }  // no /proc
                throw WriteError.system(errno, path: path)
            }
            // A file is there already: a name of its own, then a rename over it, which replaces the old
            // file at once. Only a kill between these two calls could leave the temporary name.
            for _ in 0..<8 {
                let temporary = temporaryName(for: path, in: folder)
                if linkat(AT_FDCWD, unnamed, AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) != 0 {
                    if errno == EEXIST { continue }
                    throw WriteError.system(errno, path: path)
                }
                try rename(temporary, to: path)
                return true
            }
            throw WriteError("cannot name a temporary file in `\(folder)`")
        }
    #endif

    /// Writes `bytes` to a new named file in `folder`, then renames it `path`.
    ///
    /// The portable way (macOS has neither `O_TMPFILE` nor a way to name an open descriptor, and some
    /// Linux file systems have no unnamed files): a process killed while writing leaves the temporary
    /// file, a hidden one named after the target (`.run.json.reqplan-…`). A failure removes it.
    private static func writeNamed(_ bytes: [UInt8], toPath path: String, folder: String, permissions: mode_t)
        throws(WriteError)
    {
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<8 where descriptor < 0 {
            temporary = temporaryName(for: path, in: folder)
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
            if descriptor < 0, errno != EEXIST { throw WriteError.system(errno, path: path) }
        }
        guard descriptor >= 0 else { throw WriteError("cannot create a temporary file in `\(folder)`") }
        do {
            try writeAll(bytes, to: descriptor, path: path)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        try rename(temporary, to: path)
    }

    /// A hidden name beside `path`, not yet taken in all likelihood.
    private static func temporaryName(for path: String, in folder: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? "file"
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return (folder == "/" ? "" : folder) + "/.\(name).reqplan-\(random)"
    }

    /// Renames `temporary` to `path`, removing `temporary` when that fails.
    private static func rename(_ temporary: String, to path: String) throws(WriteError) {
        #if canImport(Glibc)
            let renamed = Glibc.rename(temporary, path)
        #else
            let renamed = Darwin.rename(temporary, path)
        #endif
        guard renamed == 0 else {
            let code = errno
            unlink(temporary)
            throw WriteError.system(code, path: path)
        }
    }

    // MARK: - What is not a file

    /// The descriptor `path` names: `/dev/stdin` (0), `/dev/stdout` (1), `/dev/stderr` (2), `/dev/fd/N` or
    /// `/proc/self/fd/N` (N).
    static func descriptor(named path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return STDIN_FILENO
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                let number = path.dropFirst(prefix.count)
                guard number.count <= 9, let value = Int32(number), value >= 0 else { return nil }
                return value
            }
            return nil
        }
    }

    /// Opens the character device or FIFO `path` (not following a link put there since) and writes `bytes` to it.
    private static func writeDevice(_ bytes: [UInt8], path: String, fifo: Bool) throws(WriteError) {
        // `O_NONBLOCK`: opening a FIFO no process reads fails at once (ENXIO) instead of waiting for one.
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENXIO && fifo { throw WriteError("no process reads the FIFO `\(path)`") }
            throw WriteError.system(errno, path: path)
        }
        defer { close(descriptor) }
        try writeStream(bytes, to: descriptor, path: path)
    }

    /// Writes every byte to the descriptor `descriptor`, which may be a pipe or a device: a full pipe is waited
    /// for, and the wait ends as a wait to read does (`FileReader.endWaits(when:)`: SIGINT or SIGTERM on the
    /// command line), so a reader that stopped reading cannot hold the command.
    private static func writeStream(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(WriteError) {
        switch writeAll(bytes, to: descriptor, givingUpWhen: FileReader.waitEnded) {
        case nil: return
        case EAGAIN: throw WriteError("the wait to write `\(path)` was interrupted")
        case EBADF: throw WriteError("`\(path)` names no open descriptor")
        case let code?: throw WriteError.system(code, path: path)
        }
    }

    /// Writes every byte to the file `descriptor`.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(WriteError) {
        if let code = writeAll(bytes, to: descriptor) { throw WriteError.system(code, path: path) }
    }

    /// Writes every byte to `descriptor`, going on after short writes, interruptions and a full non-blocking pipe
    /// or device, which is waited for in `poll(2)` a tenth of a second at a time until `giveUp` says to stop.
    /// The one write loop of reports, cookie files and the command line's own standard streams.
    /// - Returns: nil, or the `errno` of the write that failed (`EAGAIN` when `giveUp` ended a wait).
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32, givingUpWhen giveUp: () -> Bool = { false })
        -> Int32?
    {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 {
                written += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                if poll(&ready, 1, 100) == 0, giveUp() { return EAGAIN }
            case let code: return code
            }
        }
        return nil
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif
