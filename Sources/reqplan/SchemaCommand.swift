import ArgumentParser
import ReqPlanSyntax

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of the plan format, for editor completion and checks.",
        discussion: """
            Save it and point your editor at it, for example with a first line \
            `# yaml-language-server: $schema=reqplan-plan.schema.json` in a plan (VS Code YAML extension). \
            The schema checks the structure of a plan; `reqplan validate` also checks references, cycles and expressions.
            """
    )

    func run() {
        write(PlanSchema.json)
    }
}
