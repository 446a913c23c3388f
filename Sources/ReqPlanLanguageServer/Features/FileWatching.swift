import ReqPlanSyntax

/// The files the server asks the client to watch, and reading what the client says changed: API descriptions
/// (each of their files), sub-plans and the data files of `for_each: { file: … }` that are not open, changed by
/// another program (`git checkout`, a generator, another editor), are read again and the open plans checked
/// again.
enum FileWatching {
    /// The id of the server's one request to the client, `client/registerCapability`.
    static let registrationID = RequestID.string("reqplan/watch-files")

    /// The `client/registerCapability` request: every YAML and JSON file of the workspace (plans,
    /// sub-plans, and API descriptions in either form), and every CSV and JSON Lines file (the rows of a
    /// `for_each`).
    static var registration: [UInt8] {
        RegisterCapabilityRequest(
            id: registrationID, registrationID: "reqplan/watched-files",
            method: DidChangeWatchedFilesNotification.method, globPattern: "**/*.{yaml,yml,json,csv,jsonl,ndjson}"
        ).message
    }
}
