import Foundation

/// Runs a command found on the `PATH` (through `/usr/bin/env`) and waits for it.
/// - Parameters:
///   - command: the command's name (`python3`, `openssl`).
///   - arguments: its arguments.
///   - directory: where it runs (default: the current folder).
/// - Returns: its exit status and what it wrote, standard output and error together.
public func runCommand(_ command: String, _ arguments: [String], in directory: URL? = nil) throws
    -> (status: Int32, output: String)
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [command] + arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    // Read to the end before waiting, so a large output cannot block the child.
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
