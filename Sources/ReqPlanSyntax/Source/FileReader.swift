import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way reqplan reads a file that something named: a plan, a sub-plan, an API description and every
/// file its `$ref`s name, an Arazzo document and its sources, an inputs or environment file, a `body_file`,
/// a multipart `file`, a cookie file, a report to merge, the files the language server opens.
///
/// What a file may be depends on who named it (`Origin`):
/// - **an input** (a plan, a description, a document, an editor's message: text someone else may have
///   written) names a **regular file inside its boundary**. Symbolic links are resolved before the boundary
///   is checked, so a link inside the project to `../outside/credentials` or `/proc/self/environ` is refused
///   like the path it points to; a FIFO, a device (`/dev/zero`), a socket or a folder is refused at once
///   with a plain reason, never opened in a way that blocks;
/// - **the user** (the command line, a program's own call) names any file they can read, a pipe or a
///   process substitution (`--inputs-file <(vault read …)`) too, read as `cat` reads it (a FIFO waits for
///   its writer); a folder is still refused. On Linux, a wait for a pipe, a FIFO or a terminal ends when the task
///   reading is cancelled or `endWaits(when:)`'s condition holds (the command line's: SIGINT or SIGTERM
///   arrived), checked ten times a second: its writer may never come, and the signals that would otherwise
///   end the process are the command line's to handle.
///
/// Either way the file is read under a size limit (one byte past it is refused without reading the rest),
/// and text is UTF-8: a byte order mark is dropped, UTF-16 and bytes that are not UTF-8 are refused, naming
/// the line and column of the first bad byte.
public enum FileReader {
    /// Who named a file, which decides what it may be.
    public enum Origin: Sendable, Hashable {
        /// The user, on the command line or through a program's own call: any readable file, pipes too.
        case user
        /// An input (a plan, a description, a document, an editor): a regular file inside `boundary`, once
        /// symbolic links are resolved (unless the boundary allows files outside).
        case input(FileBoundary)
    }

    /// Why a file could not be read, as a sentence for people.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What went wrong, for callers that word it their own way or choose a diagnostic code.
        ///
        /// A struct over a private enum, as `TransportError.Kind` is: a kind added later is a new static member,
        /// not a new case that breaks a caller's exhaustive `switch` (callers switch with a `default`).
        public struct Kind: Sendable, Hashable {
            private enum Base: Sendable, Hashable {
                case missing, outside, notRegularFile, unreadable, tooLarge, notUTF8, interrupted
            }

            private let base: Base

            private init(_ base: Base) { self.base = base }

            /// No file at the path (or a link to none).
            public static let missing = Kind(.missing)
            /// The file, its links resolved, is outside the boundary.
            public static let outside = Kind(.outside)
            /// A folder, a FIFO, a device or a socket.
            public static let notRegularFile = Kind(.notRegularFile)
            /// The system refused to open or read it (permissions, a loop of links, …).
            public static let unreadable = Kind(.unreadable)
            /// Larger than the limit.
            public static let tooLarge = Kind(.tooLarge)
            /// Not UTF-8 text (when read as text).
            public static let notUTF8 = Kind(.notUTF8)
            /// The wait for a pipe, a FIFO or a terminal ended before its end of file (see `endWaits(when:)`).
            public static let interrupted = Kind(.interrupted)
        }

        public var kind: Kind
        /// The reason, naming the file as it was shown.
        public var text: String
        /// What to do about it, when there is something to say.
        public var hint: String?
        /// The file is larger than the limit.
        public var isTooLarge: Bool { kind == .tooLarge }

        public var description: String { text }

        public init(_ kind: Kind, _ text: String, hint: String? = nil) {
            self.kind = kind
            self.text = text
            self.hint = hint
        }
    }

    /// The bytes of the file at `path`.
    /// - Parameters:
    ///   - origin: who named it (what it may be).
    ///   - limit: the most bytes it may hold.
    ///   - what: what the file is, for the too-large message (`the plan`, `the inputs file`).
    ///   - shown: how messages name the file (default: `path`).
    /// - Returns: the bytes, or why they cannot be read.
    public static func bytes(
        atPath path: String, origin: Origin, limit: Int, what: String, shownAs shown: String? = nil
    )
        -> Result<[UInt8], ReadError>
    {
        let name = shown ?? path
        let opened: Int32
        let waits: Bool
        switch open(path, origin: origin, name: name) {
        case .failure(let failure): return .failure(failure)
        case .success(let descriptor): (opened, waits) = descriptor
        }
        defer { close(opened) }
        // Read one byte past the limit, so a huge file (or `/dev/zero` named by the user) is refused without
        // reading it all. A pipe gives its text in pieces, and a signal (Ctrl-C while the plan is read) may
        // interrupt a read: both go on until the end of the file.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            if waits, !waitForInput(opened) {
                return .failure(
                    ReadError(.interrupted, "cannot read `\(name)`: the wait for its end was interrupted"))
            }
            let count = chunk.withUnsafeMutableBytes { systemRead(opened, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR || (waits && errno == EAGAIN) { continue }
                return .failure(ReadError(.unreadable, "cannot read `\(name)`: \(String(cString: strerror(errno)))"))
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        if bytes.count > limit {
            return .failure(ReadError(.tooLarge, "\(what) is larger than the limit of \(limit) bytes"))
        }
        return .success(bytes)
    }

    /// The file at `path` as `Data`, as `bytes(atPath:origin:limit:what:shownAs:)` reads it.
    public static func data(atPath path: String, origin: Origin, limit: Int, what: String, shownAs shown: String? = nil)
        -> Result<Data, ReadError>
    {
        bytes(atPath: path, origin: origin, limit: limit, what: what, shownAs: shown).map { Data($0) }
    }

    /// The UTF-8 text of the file at `path` (a byte order mark dropped), as `bytes(…)` reads it.
    public static func text(atPath path: String, origin: Origin, limit: Int, what: String, shownAs shown: String? = nil)
        -> Result<String, ReadError>
    {
        let name = shown ?? path
        return bytes(atPath: path, origin: origin, limit: limit, what: what, shownAs: shown).flatMap {
            decode($0, name: name)
        }
    }

    /// `bytes` as UTF-8 text, a byte order mark dropped; or why they are not UTF-8, with where.
    public static func decode(_ bytes: [UInt8], name: String) -> Result<String, ReadError> {
        // Checked and copied once, by the standard library (through `Data` it was copied twice more).
        if let text = String(validating: bytes, as: UTF8.self) {
            return .success(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
        }
        let hint = "save it as UTF-8 (without a byte order mark, or with UTF-8's)"
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return .failure(
                ReadError(
                    .notUTF8,
                    "cannot read `\(name)`: the file is UTF-16 text (it starts with a UTF-16 byte order "
                        + "mark), not UTF-8", hint: hint))
        }
        let (offset, line, column) = firstInvalidByte(bytes)
        let byte = String(bytes[offset], radix: 16, uppercase: true)
        return .failure(
            ReadError(
                .notUTF8,
                "cannot read `\(name)`: the file is not UTF-8 text (byte 0x\(byte.count == 1 ? "0" + byte : byte) at "
                    + "line \(line), column \(column) starts no UTF-8 character)", hint: hint))
    }

    /// The offset of the first byte that starts no valid UTF-8 sequence, with its line and column (1-based,
    /// the column in characters before it).
    private static func firstInvalidByte(_ bytes: [UInt8]) -> (offset: Int, line: Int, column: Int) {
        var index = 0
        var line = 1
        var column = 1
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length == 0 { return (index, line, column) }
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += length
        }
        return (max(0, bytes.count - 1), line, column)
    }

    /// The length of the valid UTF-8 sequence at `index`, or 0 when none starts there (overlong forms and
    /// surrogates included, as the standard library refuses them).
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let length: Int
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        return String(validating: bytes[index..<index + length], as: UTF8.self) == nil ? 0 : length
    }

    // MARK: Waiting

    #if os(Linux)
        /// Whether a pipe, a FIFO or a terminal the user named is read without blocking, each read waiting in
        /// `poll(2)`. On Linux, `poll(2)` of a FIFO opened before its writer waits for that writer (no end of file
        /// is reported until a writer has come and gone), and `/dev/stdin` opens a description of its own, so
        /// `O_NONBLOCK` changes nothing for the shell. Elsewhere (Darwin's `/dev/stdin` shares the shell's
        /// description) the file is read blocking, as before, and only a signal's default action ends the wait.
        private static let readsWaitInPoll = true
    #else
        private static let readsWaitInPoll = false
    #endif

    /// The condition `endWaits(when:)` set: when it holds, a wait for input ends.
    private static let waitsEnd = Mutex<(@Sendable () -> Bool)?>(nil)

    /// From now on a wait for a pipe, a FIFO or a terminal the user named also ends when `condition` holds
    /// (as well as when the reading task is cancelled). The command line's `InterruptSignals` sets it to "SIGINT
    /// or SIGTERM arrived", so Ctrl-C ends `reqplan run <(slow command)` while it waits, as it ends `cat`.
    public static func endWaits(when condition: @escaping @Sendable () -> Bool) {
        waitsEnd.withLock { $0 = condition }
    }

    /// Whether a wait should end now: the task is cancelled, or `endWaits(when:)`'s condition holds. For a wait to
    /// write too (`OutputFile`).
    static func waitEnded() -> Bool {
        let cancelled = withUnsafeCurrentTask { $0?.isCancelled ?? false }
        return cancelled || waitsEnd.withLock({ $0?() ?? false })
    }

    /// Waits until `descriptor` (not a regular file) has input or its end; false when the wait was ended first
    /// (the task cancelled, or `endWaits(when:)`'s condition), checked every 100 ms.
    private static func waitForInput(_ descriptor: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&request, 1, 100)
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }  // a failure is the read's to report
            if waitEnded() { return false }
        }
    }

    // MARK: Opening

    /// Opens `path` with `flags` and reads its status from the descriptor: what was opened, not what the path
    /// names by then. The descriptor is closed when the status cannot be read.
    private static func openAndStat(_ path: String, _ flags: Int32, name: String) -> Result<(Int32, stat), ReadError> {
        let descriptor = systemOpen(path, flags)
        guard descriptor >= 0 else { return .failure(openFailure(errno, name: name)) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let failure = openFailure(errno, name: name)
            close(descriptor)
            return .failure(failure)
        }
        return .success((descriptor, status))
    }

    /// Opens the file for reading, after the checks its origin calls for.
    /// - Returns: the descriptor, and whether reading it may wait (not a regular file: it is then non-blocking,
    ///   and each read waits in `waitForInput`).
    private static func open(_ path: String, origin: Origin, name: String) -> Result<(Int32, waits: Bool), ReadError> {
        switch origin {
        case .user:
            // Opened as named, links followed; a FIFO the user names is read as `cat` reads it, waiting for
            // its writer (a script that feeds `--inputs-file` through one). `O_NONBLOCK` keeps `open(2)` of a
            // FIFO from waiting for that writer where nothing could end the wait: the reads wait instead, in
            // `waitForInput` (see `readsWaitInPoll`).
            let descriptor: Int32
            let status: stat
            switch openAndStat(path, O_RDONLY | O_CLOEXEC | (readsWaitInPoll ? O_NONBLOCK : 0), name: name) {
            case .failure(let failure): return .failure(failure)
            case .success(let opened): (descriptor, status) = opened
            }
            if fileType(status) == S_IFDIR {
                close(descriptor)
                return .failure(ReadError(.notRegularFile, "cannot read `\(name)`: it is a folder, not a file"))
            }
            if let failure = processState(status, path: path, name: name) {
                close(descriptor)
                return .failure(failure)
            }
            if fileType(status) == S_IFREG || !readsWaitInPoll {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                return .success((descriptor, waits: false))
            }
            return .success((descriptor, waits: true))
        case .input(let boundary):
            let resolved: String
            switch realPath(path, name: name) {
            case .failure(let failure): return .failure(failure)
            case .success(let real): resolved = real
            }
            if !boundary.permits(URL(fileURLWithPath: resolved)) {
                let through =
                    resolved == URL(fileURLWithPath: path).standardizedFileURL.path
                    ? "" : " (through a link: it is `\(resolved)`)"
                return .failure(
                    ReadError(
                        .outside, "cannot read `\(name)`: it is outside \(boundary.scope)\(through)",
                        hint: boundary.outsideHint))
            }
            // The path has no links left: `O_NOFOLLOW` refuses one put in its place since, and `O_NONBLOCK`
            // keeps a FIFO put there from blocking `open(2)`; what was opened is checked on the descriptor.
            let descriptor: Int32
            let status: stat
            switch openAndStat(resolved, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, name: name) {
            case .failure(let failure): return .failure(failure)
            case .success(let opened): (descriptor, status) = opened
            }
            guard fileType(status) == S_IFREG else {
                close(descriptor)
                return .failure(
                    ReadError(.notRegularFile, "cannot read `\(name)`: it is \(kind(of: status)), not a regular file"))
            }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            return .success((descriptor, waits: false))
        }
    }

    /// Why a file the user named is not read when it lies in `/proc` or `/sys`: what was opened (`status`, read
    /// from its descriptor) is on the file system mounted there (the same device). Those files are the state of
    /// processes and of the system (`/proc/self/environ` holds a CI job's secrets), never a plan, an inputs or a
    /// data file; a link to one committed in place of `plans/smoke.yaml` would otherwise have its first line shown
    /// in the excerpt of the error that follows. (The command line hands on paths with their links resolved, so
    /// what the user wrote cannot tell a link from a path typed as `/proc/…`: both are refused.) `<(command)` and
    /// `/dev/stdin` open a pipe, a terminal or a file elsewhere, and are read as before.
    private static func processState(_ status: stat, path: String, name: String) -> ReadError? {
        let kind: String
        switch status.st_dev {
        case deviceOf("/proc"): kind = "/proc"
        case deviceOf("/sys"): kind = "/sys"
        default: return nil
        }
        var place = "in \(kind)"
        if case .success(let real) = realPath(path, name: name), real != name {
            place += " (it is `\(VisibleText.line(real))`)"
        }
        return ReadError(
            .outside,
            "cannot read `\(name)`: it is \(place), where the state of processes and of the system is kept, not a "
                + "file to read",
            hint: "a file in /proc or /sys is not read, even through a link, so that a link committed in place of a "
                + "plan or an inputs file cannot show what is behind it (a process's environment holds its secrets)")
    }

    /// The device of the file system mounted at `path`; nil where nothing is (no `/proc` on Darwin).
    private static func deviceOf(_ path: String) -> dev_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_dev : nil
    }

    /// What the file at `path` is when it exists and is not a regular file (`a folder`, `a named pipe (FIFO)`,
    /// `a character device`), without opening it; nil for a regular file or no file. For checks before a run
    /// (`validate`) that word the problem their own way.
    public static func nonRegularKind(atPath path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, fileType(status) != S_IFREG else { return nil }
        return kind(of: status)
    }

    /// What kind of file a status describes, with its article.
    private static func kind(of status: stat) -> String {
        switch fileType(status) {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a file"
        }
    }

    private static func fileType(_ status: stat) -> mode_t { status.st_mode & S_IFMT }

    /// The absolute path of `path` with every symbolic link resolved.
    private static func realPath(_ path: String, name: String) -> Result<String, ReadError> {
        guard let resolved = realpath(path, nil) else { return .failure(openFailure(errno, name: name)) }
        defer { free(resolved) }
        return .success(String(cString: resolved))
    }

    private static func openFailure(_ code: Int32, name: String) -> ReadError {
        switch code {
        case ENOENT, ENOTDIR: return ReadError(.missing, "cannot read `\(name)`: no such file")
        case EACCES, EPERM: return ReadError(.unreadable, "cannot read `\(name)`: permission denied")
        case ELOOP: return ReadError(.unreadable, "cannot read `\(name)`: too many levels of symbolic links")
        case ENXIO: return ReadError(.notRegularFile, "cannot read `\(name)`: it is a socket, not a regular file")
        default: return ReadError(.unreadable, "cannot read `\(name)`: \(String(cString: strerror(code)))")
        }
    }
}

#if canImport(Glibc)
    private let systemRead = Glibc.read
    private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { Glibc.open(path, flags) }
#elseif canImport(Darwin)
    private let systemRead = Darwin.read
    private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { Darwin.open(path, flags) }
#endif
