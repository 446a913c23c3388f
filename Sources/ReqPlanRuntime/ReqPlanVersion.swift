/// reqplan's version, as `reqplan --version` says it, reports name their creator and each request's default
/// `User-Agent` carries it.
public enum ReqPlanVersion {
    /// The version of this build.
    public static let current = "0.1.0"
    /// The `User-Agent` a request sends when its plan does not set one: `reqplan/0.1.0`.
    public static let userAgent = "reqplan/\(current)"
}
