import Foundation
import Testing

@testable import ReqPlanSyntax

#if canImport(Glibc)
    import Glibc
#endif

/// `OutputFile`: a file replaced whole, with the permissions asked for, and nothing else left in its folder.
@Suite struct OutputFileTests {
    @Test func anExistingFileIsReplacedWithNothingLeftBeside() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cookies.txt").path
        try OutputFile.write("old\n", toPath: path)
        try OutputFile.write("new\n", toPath: path, permissions: 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cookies.txt"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    #if os(Linux)
        /// What is not a file is written to, never replaced: `/dev/null` and `/dev/full` stay devices (run as root,
        /// a rename once put a report in place of `/dev/full`), `/dev/full`'s failure is said, a FIFO gets the text or
        /// is refused at once when nothing reads it, `/dev/fd/N` writes to descriptor N, the standard input is refused,
        /// and a link to a device is replaced like any link, not written through.
        @Test func devicesPipesAndDescriptorsAreWrittenToNotReplaced() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "reqplan-out-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            func isCharacterDevice(_ path: String) -> Bool {
                var status = stat()
                return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
            }
            try OutputFile.write("{}\n", toPath: "/dev/null")
            #expect(isCharacterDevice("/dev/null"))
            if isCharacterDevice("/dev/full") {
                #expect(throws: OutputFile.WriteError("no space left on the device")) {
                    try OutputFile.write("{}\n", toPath: "/dev/full")
                }
                #expect(isCharacterDevice("/dev/full"))
            }
            // A FIFO: refused at once with no reader; with one, it reads the text whole.
            let fifo = folder.appendingPathComponent("report.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            #expect(throws: OutputFile.WriteError("no process reads the FIFO `\(fifo)`")) {
                try OutputFile.write("{}\n", toPath: fifo)
            }
            let text = String(repeating: "report line\n", count: 20_000)  // more than a pipe holds
            let reader = Thread {
                let read = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile()
                try? read?.write(to: folder.appendingPathComponent("read"))
            }
            reader.start()
            var written = false
            for _ in 0..<100 where !written {
                // Until the reader has opened its end.
                do {
                    try OutputFile.write(text, toPath: fifo)
                    written = true
                } catch {
                    usleep(20_000)
                }
            }
            #expect(written)
            var read = ""
            for _ in 0..<100 where read.count < text.count {
                usleep(20_000)
                read = (try? String(contentsOf: folder.appendingPathComponent("read"), encoding: .utf8)) ?? ""
            }
            #expect(read == text)
            // `/dev/fd/N`: the text goes on the descriptor.
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            try OutputFile.write("on the pipe\n", toPath: "/dev/fd/\(ends[1])")
            close(ends[1])
            let piped = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true).readDataToEndOfFile()
            #expect(String(decoding: piped, as: UTF8.self) == "on the pipe\n")
            #expect(throws: OutputFile.WriteError("`/dev/fd/987654` names no open descriptor")) {
                try OutputFile.write("{}\n", toPath: "/dev/fd/987654")
            }
            // The standard input is refused, by any of its names: the link `/dev/stdin` stays a link.
            for name in ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"] {
                #expect(
                    throws: OutputFile.WriteError(
                        "`\(name)` is the standard input, which is read, not written: name `/dev/stdout` or a file")
                ) {
                    try OutputFile.write("{}\n", toPath: name)
                }
            }
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/dev/stdin")) != nil)
            // A link to a device is replaced by the file, the device left alone.
            let link = folder.appendingPathComponent("run.json").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
            try OutputFile.write("{}\n", toPath: link)
            #expect(try String(contentsOfFile: link, encoding: .utf8) == "{}\n")
            #expect(isCharacterDevice("/dev/null"))
        }
    #endif
}
