import FoundationEssentials
import Glibc
import OpenAPIKit

// floor-openapikit DESCRIPTION: decodes an OpenAPI 3.1 description (JSON) and prints its title. It imports
// FoundationEssentials only, so what else of Foundation is linked is what OpenAPIKit needs.
guard CommandLine.arguments.count == 2,
    let data = FileManager.default.contents(atPath: CommandLine.arguments[1]),
    let document = try? JSONDecoder().decode(OpenAPI.Document.self, from: data)
else {
    print("usage: floor-openapikit DESCRIPTION (OpenAPI 3.1, JSON)")
    exit(2)
}
print(document.info.title)
