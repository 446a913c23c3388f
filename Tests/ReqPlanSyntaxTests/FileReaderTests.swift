import Foundation
import Synchronization
import ReqPlanTestSupport
import Testing

@testable import ReqPlanSyntax

#if canImport(Glibc)
    import Glibc
#endif

/// `FileReader`, which every file reqplan reads because something named it goes through: UTF-8 checked, a
/// byte order mark dropped, a file past the limit refused without being read whole; for a file an input
/// named, links resolved before the boundary is checked and only regular files read, never blocking.
@Suite struct FileReaderTests {
    private func read(_ bytes: [UInt8], limit: Int = 1_000) throws -> Result<String, FileReader.ReadError> {
        let url = TestFolders.unique("text-file")
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return FileReader.text(atPath: url.path, origin: .user, limit: limit, what: "the plan", shownAs: "plan.yaml")
    }

    @Test func textIsReadAsWritten() throws {
        let text = "reqplan: 1\nname: \"caf\u{E9} \u{1F600}\"\r\n"
        #expect(try read(Array(text.utf8)).get() == text)
    }

    @Test func aByteOrderMarkIsDropped() throws {
        #expect(try read([0xEF, 0xBB, 0xBF] + Array("reqplan: 1\n".utf8)).get() == "reqplan: 1\n")
    }

    @Test(arguments: [
        ([0xFF] as [UInt8], "0xFF"),  // never valid
        ([0xC3, 0x28], "0xC3"),  // a sequence cut short
        ([0xC0, 0xAF], "0xC0"),  // an overlong encoding of `/`
        ([0xED, 0xA0, 0x80], "0xED"),  // a UTF-16 surrogate
        ([0xE9, 0x74, 0xE9], "0xE9"),  // Latin-1 `été`
    ])
    func bytesThatAreNotUTF8AreRefusedWithTheirPlace(_ bad: [UInt8], _ shown: String) throws {
        let before = Array("reqplan: 1\nurl: \"http://x/".utf8)
        guard case .failure(let failure) = try read(before + bad + Array("\"\n".utf8)) else {
            Issue.record("\(bad) was read as text")
            return
        }
        #expect(
            failure.text
                == "cannot read `plan.yaml`: the file is not UTF-8 text (byte \(shown) at line 2, column 16 starts no "
                + "UTF-8 character)")
        #expect(failure.kind == .notUTF8)
        #expect(failure.hint != nil)
    }

    @Test func utf16IsNamed() throws {
        let units = Array("reqplan: 1\n".utf16)
        let utf16: [UInt8] =
            [0xFF, 0xFE] + units.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        guard case .failure(let failure) = try read(utf16) else {
            Issue.record("UTF-16 was read as UTF-8")
            return
        }
        #expect(failure.text.contains("the file is UTF-16 text"))
    }

    @Test func aFilePastTheLimitIsRefusedAsTooLarge() throws {
        guard case .failure(let failure) = try read(Array(repeating: UInt8(ascii: "a"), count: 101), limit: 100)
        else {
            Issue.record("a file of 101 bytes was read under a limit of 100")
            return
        }
        #expect(failure.isTooLarge)
        #expect(failure.text == "the plan is larger than the limit of 100 bytes")
        #expect(try read(Array(repeating: UInt8(ascii: "a"), count: 100), limit: 100).get().utf8.count == 100)
        #expect(try read([]).get() == "")
    }

    // MARK: Files an input names

    /// A project (`.reqplan` at its root) with a file inside, and a secret beside it, outside.
    private func project() throws -> (project: URL, outside: URL) {
        let top = TestFolders.unique("reader-boundary")
        let project = top.appendingPathComponent("project")
        let outside = top.appendingPathComponent("outside")
        for folder in [project, outside] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try Data().write(to: project.appendingPathComponent(".reqplan"))
        try Data("CI_TOKEN=s3cr3t\n".utf8).write(to: outside.appendingPathComponent("credentials"))
        try Data("inside: true\n".utf8).write(to: project.appendingPathComponent("inside.yaml"))
        return (project, outside)
    }

    private func readInput(_ name: String, in project: URL, allowOutside: Bool = false)
        -> Result<String, FileReader.ReadError>
    {
        let boundary = FileBoundary(planFolder: project, allowOutside: allowOutside)
        return FileReader.text(
            atPath: project.appendingPathComponent(name).path, origin: .input(boundary), limit: 1 << 20,
            what: "the file", shownAs: name)
    }

    @Test func aFileInsideTheProjectIsRead() throws {
        let (project, _) = try project()
        #expect(try readInput("inside.yaml", in: project).get() == "inside: true\n")
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("alias.yaml").path, withDestinationPath: "inside.yaml")
        #expect(try readInput("alias.yaml", in: project).get() == "inside: true\n")
    }

    @Test(arguments: ["../outside/credentials", "/proc/self/environ"])
    func aLinkOutOfTheProjectIsRefusedOnWhatItResolvesTo(_ target: String) throws {
        let (project, _) = try project()
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("notes.md").path, withDestinationPath: target)
        // Through a folder that is a link too.
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("docs").path,
            withDestinationPath: target.hasPrefix("/") ? "/proc/self" : "../outside")
        for name in ["notes.md", target.hasPrefix("/") ? "docs/environ" : "docs/credentials"] {
            guard case .failure(let failure) = readInput(name, in: project) else {
                Issue.record("`\(name)` (a link to \(target)) was read")
                continue
            }
            #expect(failure.kind == .outside)
            #expect(failure.text.contains("outside the plan's project (through a link"))
            #expect(!failure.text.contains("s3cr3t") && !failure.text.contains("CI_TOKEN"))
            #expect(failure.hint?.contains("--allow-files-outside") == false)
        }
        // Allowed outside, the file behind the link is read.
        if !target.hasPrefix("/") {
            #expect(try readInput("notes.md", in: project, allowOutside: true).get() == "CI_TOKEN=s3cr3t\n")
        }
    }

    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let (project, _) = try project()
        let fifo = project.appendingPathComponent("fifo.yaml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        guard case .failure(let failure) = readInput("fifo.yaml", in: project) else {
            Issue.record("a FIFO was read")
            return
        }
        #expect(failure.text == "cannot read `fifo.yaml`: it is a named pipe (FIFO), not a regular file")
    }

    /// Runs `body` on a thread of its own: the reads below block the thread they run on, so what releases them
    /// (the writer, the cancellation) must not wait for a thread of the concurrency pool they may all be holding.
    private func onThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) {
        Thread { body() }.start()
    }

    /// A FIFO the user names is read as `cat` reads it: the open does not wait for the writer, the reads do, and
    /// what a writer that comes late sends in pieces is read whole.
    @Test func aFIFOTheUserNamesIsReadWholeFromAWriterThatComesLate() async throws {
        let (project, _) = try project()
        let fifo = project.appendingPathComponent("late.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        onThreadOfItsOwn {
            usleep(300_000)
            let writer = open(fifo, O_WRONLY)
            guard writer >= 0 else { return }
            for piece in ["reqplan: 1\n", "steps: {}\n"] {
                _ = piece.withCString { write(writer, $0, strlen($0)) }
                usleep(200_000)
            }
            close(writer)
        }
        let read = await Task.detached {
            FileReader.text(atPath: fifo, origin: .user, limit: 100, what: "the file", shownAs: "late.fifo")
        }.value
        #expect(read == .success("reqplan: 1\nsteps: {}\n"))
    }

    /// A wait for a FIFO's writer that never comes ends when the reading task is cancelled (the command line also
    /// ends it on SIGINT and SIGTERM, `endWaits(when:)`): it used to block in `open(2)`, which nothing ended.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aWaitForAFIFOEndsWhenItsTaskIsCancelled(writerComes: Bool) async throws {
        let (project, _) = try project()
        let fifo = project.appendingPathComponent("never.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reading = Task.detached {
            FileReader.bytes(atPath: fifo, origin: .user, limit: 100, what: "the file", shownAs: "never.fifo")
        }
        let released = Mutex(false)
        onThreadOfItsOwn {
            // With a writer that opens it and sends part of the file, the wait is for the rest.
            let writer = writerComes ? open(fifo, O_WRONLY) : -1
            if writer >= 0 { _ = "reqplan: 1\n".withCString { write(writer, $0, strlen($0)) } }
            usleep(300_000)
            reading.cancel()
            while !released.withLock({ $0 }) { usleep(10_000) }
            if writer >= 0 { close(writer) }
        }
        let read = await reading.value
        released.withLock { $0 = true }
        #expect(
            read
                == .failure(
                    FileReader.ReadError(.interrupted, "cannot read `never.fifo`: the wait for its end was interrupted")
                ))
    }

    @Test func devicesAndFoldersAreRefused() throws {
        let (project, _) = try project()
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("zero").path, withDestinationPath: "/dev/zero")
        let boundary = FileBoundary(planFolder: project, allowOutside: true)
        let zero = FileReader.text(
            atPath: project.appendingPathComponent("zero").path, origin: .input(boundary), limit: 100,
            what: "the file", shownAs: "zero")
        #expect(
            zero
                == .failure(
                    FileReader.ReadError(
                        .notRegularFile, "cannot read `zero`: it is a character device, not a regular file")))
        try FileManager.default.createDirectory(
            at: project.appendingPathComponent("folder.yaml"), withIntermediateDirectories: true)
        guard case .failure(let folder) = readInput("folder.yaml", in: project) else {
            Issue.record("a folder was read")
            return
        }
        #expect(folder.text == "cannot read `folder.yaml`: it is a folder, not a regular file")
        // Named by the user: `/dev/zero` is refused at the limit, a folder as a folder.
        let userZero = FileReader.bytes(atPath: "/dev/zero", origin: .user, limit: 100, what: "the file")
        #expect(userZero == .failure(FileReader.ReadError(.tooLarge, "the file is larger than the limit of 100 bytes")))
        guard
            case .failure(let userFolder) = FileReader.bytes(
                atPath: project.path, origin: .user, limit: 100, what: "the file", shownAs: "project")
        else {
            Issue.record("a folder was read")
            return
        }
        #expect(userFolder.text == "cannot read `project`: it is a folder, not a file")
    }

    #if os(Linux)
        /// A file the user names may be a link, but nothing in `/proc` or `/sys`: a link committed in place of a
        /// plan (`plans/smoke.yaml` → `/proc/self/environ`) and named by a CI job's command would otherwise have the
        /// job's environment shown in the excerpt of the error that follows. A pipe (`<(command)` is `/dev/fd/N`)
        /// is read as before.
        @Test func aFileTheUserNamesInProcIsRefusedAndNothingBehindItShown() throws {
            let (project, _) = try project()
            // What the environment holds, as the process sees it: none of it may show.
            let environment = try #require(
                String(data: try Data(contentsOf: URL(fileURLWithPath: "/proc/self/environ")), encoding: .utf8))
            let entries = environment.split(separator: "\u{0}").map(String.init).filter { $0.count > 3 }
            let cases = [
                ("smoke.yaml", "/proc/self/environ", "/proc"), ("nested.yaml", "/proc/self/cmdline", "/proc"),
                ("uevent.yaml", "/sys/kernel/uevent_seqnum", "/sys"),
            ].filter { FileManager.default.isReadableFile(atPath: $0.1) }  // a container may have no /sys
            #expect(cases.count >= 2)
            for (name, target, kind) in cases {
                let link = project.appendingPathComponent(name).path
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
                // Through the link, and as written.
                for (path, shown) in [(link, name), (target, target)] {
                    guard
                        case .failure(let failure) = FileReader.text(
                            atPath: path, origin: .user, limit: 1 << 20, what: "the plan", shownAs: shown)
                    else {
                        Issue.record("`\(shown)` (\(target)) was read")
                        continue
                    }
                    #expect(failure.kind == .outside)
                    #expect(failure.text.hasPrefix("cannot read `\(shown)`: it is in \(kind)"))
                    // Through the link, where it leads.
                    #expect(path == target || failure.text.contains("(it is `\(kind)/"))
                    #expect(!entries.contains { failure.text.contains($0) })
                    #expect(failure.hint?.contains("even through a link") == true)
                }
            }
            // Through a folder that is a link.
            try FileManager.default.createSymbolicLink(
                atPath: project.appendingPathComponent("state").path, withDestinationPath: "/proc/self")
            let throughFolder = FileReader.text(
                atPath: project.appendingPathComponent("state/environ").path, origin: .user, limit: 1 << 20,
                what: "the plan")
            if case .failure(let failure) = throughFolder {
                #expect(failure.kind == .outside)
            } else {
                Issue.record("`state/environ` (through a link to /proc/self) was read")
            }
            // A pipe through `/dev/fd` (what `<(command)` names) is read as before.
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let text = Array("inputs: 1\n".utf8)
            #expect(write(ends[1], text, text.count) == text.count)
            close(ends[1])
            defer { close(ends[0]) }
            let piped = try FileReader.text(
                atPath: "/dev/fd/\(ends[0])", origin: .user, limit: 100, what: "the inputs file"
            ).get()
            #expect(piped == "inputs: 1\n")
        }
    #endif

    @Test func aMissingFileOrALinkToNoneIsNamed() throws {
        let (project, _) = try project()
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("dangling.yaml").path, withDestinationPath: "gone.yaml")
        for name in ["missing.yaml", "dangling.yaml"] {
            #expect(
                readInput(name, in: project)
                    == .failure(FileReader.ReadError(.missing, "cannot read `\(name)`: no such file")))
        }
    }
}

/// An environment's name through the library (`InputsFile.environmentFile`): a file name, never a path.
@Suite struct EnvironmentNameTests {
    @Test(arguments: ["../elsewhere/prod", "a/b", "a\\b", "..", "", ".", "prod\u{0}x", "new\nline", "x..y"])
    func aNameThatIsAPathIsRefusedBeforeAnythingIsRead(_ name: String) {
        guard case .failure(let diagnostic) = InputsFile.environmentFile(named: name, forPlan: "/tmp/plan.yaml") else {
            Issue.record("`\(name)` was taken as an environment's name")
            return
        }
        #expect(diagnostic.message.contains("is not an environment name"), "\(diagnostic.message)")
    }

    @Test func aPlainNameIsLookedFor() {
        guard case .failure(let diagnostic) = InputsFile.environmentFile(named: "staging-2", forPlan: "/tmp/x/p.yaml")
        else { return }
        #expect(diagnostic.message.hasPrefix("no environment `staging-2`"), "\(diagnostic.message)")
    }
}
