import ArgumentParser
import ReqPlanSyntax

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

    mutating func validate() throws {
        // The name is a file's name in the project's root: `../elsewhere/prod` would read another project's.
        if let environmentName, let problem = InputsFile.environmentNameProblem(environmentName) {
            throw ValidationError(
                "--env `\(environmentName)` is not an environment name: \(problem); give NAME alone, "
                    + "for NAME.env.yaml at the root of the plan's project, or read another file with --inputs-file")
        }
    }
}
