import ReqPlanSyntax

/// The files the server asks the client to watch, and reading what the client says changed: API descriptions
/// (each of their files) and sub-plans that are not open, changed by another program (`git checkout`, a
/// generator, another editor), are read again and the open plans checked again.
enum FileWatching {
    /// The id of the server's one request to the client, `client/registerCapability`.
    static let registrationID = RequestID.string("reqplan/watch-files")

    /// The `client/registerCapability` request: every YAML and JSON file of the workspace (plans,
    /// sub-plans, and API descriptions in either form).
    static var registration: [UInt8] {
        let watcher: Value = .object([.init("globPattern", .string("**/*.{yaml,yml,json}"))])
        let registration: Value = .object([
            .init("id", .string("reqplan/watched-files")),
            .init("method", .string("workspace/didChangeWatchedFiles")),
            .init("registerOptions", .object([.init("watchers", .list([watcher]))])),
        ])
        return JSONRPCMessage.request(
            id: registrationID, "client/registerCapability",
            params: .object([.init("registrations", .list([registration]))]))
    }

    /// The paths of the `file:` URIs a `workspace/didChangeWatchedFiles` notification names.
    static func changedPaths(_ params: Value) -> [String] {
        guard case .list(let changes)? = params["changes"] else { return [] }
        return changes.compactMap { change in
            guard case .string(let uri)? = change["uri"] else { return nil }
            return DocumentURI(uri).filePath
        }
    }
}
