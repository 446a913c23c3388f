import ReqPlanSyntax

/// The values a run starts from: inputs and the environment variables the plan declares.
public struct RunInputs: Sendable {
    public var values: [String: Value]
    public var environment: [String: String]
    /// Names of secret inputs and their values, to redact.
    public var secrets: [String]

    public init(values: [String: Value], environment: [String: String], secrets: [String] = []) {
        self.values = values
        self.environment = environment
        self.secrets = secrets
    }
}
