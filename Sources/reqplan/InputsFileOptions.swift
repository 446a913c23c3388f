import ArgumentParser

/// The files that give inputs their values, as `run` and `validate` take them: `run` uses the values,
/// `validate` checks them against the plans.
struct InputsFileOptions: ParsableArguments {
    @Option(
        name: .customLong("inputs-file"),
        help: "A JSON or YAML file mapping input names to values; names a plan does not declare are ignored.")
    var inputsFile: String?

    @Option(
        name: .customLong("env"),
        help: ArgumentHelp(
            "The values of environment NAME: the file NAME.env.yaml at the root of the plan's project "
                + "(the folder above it with .git or .reqplan); --inputs-file wins over it.", valueName: "name"))
    var environmentName: String?
}
