import ReqPlanTransport
import ReqPlanRuntime

// How messages below the command line name its options: the runtime and the transport name settings by
// what they are ("the CA file", "the value given for input `n`"); the command line gives them its flags.

extension ConnectionOptions.SettingNames {
    /// The command line's options.
    static let commandLine = Self(
        proxy: "--proxy", caFile: "--cacert", certificateFile: "--cert", keyFile: "--key", insecure: "--insecure")
}

extension InputResolver.Naming {
    /// The command line's `--input name=value`.
    static let commandLine = Self(inputOption: "--input")
}
