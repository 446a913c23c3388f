import Foundation
import OpenAPIKit
import ReqPlanPlanner
import ReqPlanSyntax

/// Turns an OpenAPIKit 3.1 document into the planner's `APIDescription`.
struct OpenAPIConversion {
    let document: OpenAPI.Document
    /// The document's security, read from its nodes (OpenAPIKit decodes the document without it); none
    /// when nil.
    var security: DescriptionSecurity? = nil
    /// Whether to read what plans written from the description need and checks do not: examples of
    /// parameters, request bodies and schemas, `format`, `tags` and responses' `links`.
    var samples = false

    func description() throws -> APIDescription {
        var operations: [APIOperation] = []
        let securityByOperation = security?.requirementsByOperation() ?? [:]
        for (path, item) in document.paths {
            guard let pathItem = document.components[item] else {
                throw APIDescriptionLoadError("path `\(path.rawValue)` refers to a path item that does not exist")
            }
            let shared = parameters(pathItem.parameters)
            for endpoint in pathItem.endpoints {
                let operation = endpoint.operation
                let own = parameters(operation.parameters)
                // The operation's own parameters win over the path item's (same name and place).
                let merged =
                    own
                    + shared.filter { parameter in
                        !own.contains { $0.name == parameter.name && $0.location == parameter.location }
                    }
                let method = endpoint.method.rawValue.uppercased()
                var converted = APIOperation(
                    id: operation.operationId, method: method, path: path.rawValue, parameters: merged,
                    requestBody: requestBody(operation.requestBody), responses: responses(operation.responses),
                    summary: operation.summary, security: securityByOperation[method + " " + path.rawValue])
                if samples { converted.tags = operation.tags ?? [] }
                operations.append(converted)
            }
        }
        var schemas: [String: APISchema] = [:]
        for (name, schema) in document.components.schemas {
            schemas[name.rawValue] = convert(schema)
        }
        let servers = document.servers.map { server in
            var url = server.urlTemplate.rawValue
            for (name, variable) in server.variables {
                url = url.replacingOccurrences(of: "{\(name)}", with: variable.default)
            }
            return url
        }
        return APIDescription(
            title: document.info.title, operations: operations, schemas: APISchemaTable(schemas: schemas),
            servers: servers, securitySchemes: security?.schemes ?? [:], security: security?.requirements ?? [])
    }

    private func parameters(_ list: OpenAPI.Parameter.Array) -> [APIParameter] {
        list.compactMap { either -> APIParameter? in
            guard let parameter = document.components[either] else { return nil }
            let location: APIParameter.Location
            switch parameter.location {
            case .path: location = .path
            case .query, .querystring: location = .query
            case .header: location = .header
            case .cookie: location = .cookie
            }
            var schema: APISchema?
            var example: Value?
            switch parameter.schemaOrContent {
            case .a(let context):
                switch context.schema {
                case .a(let reference): schema = referenced(reference.jsonReference)
                case .b(let inline): schema = convert(inline)
                }
                if samples { example = context.example.map(Self.value) ?? firstExample(context.examples) }
            case .b(let content):
                let json = media(content, examples: samples).first { $0.isJSON }
                schema = json?.schema
                example = json?.examples.first
            }
            return APIParameter(
                name: parameter.name, location: location, required: parameter.required || location == .path,
                schema: schema, example: example)
        }
    }

    private func requestBody(
        _ either: Either<OpenAPI.Reference<OpenAPI.Request>, OpenAPI.Request>?
    ) -> APIRequestBody? {
        guard let either, let request = document.components[either] else { return nil }
        return APIRequestBody(required: request.required, content: media(request.content, examples: samples))
    }

    private func responses(_ map: OpenAPI.Response.Map) -> [APIResponse] {
        map.compactMap { code, either -> APIResponse? in
            guard let response = document.components[either] else { return nil }
            let status: APIStatus?
            switch code.value {
            case .default: status = nil
            case .status(let number): status = .code(number)
            case .range(let range): status = .range(Int(range.rawValue.prefix(1)) ?? 0)
            }
            return APIResponse(
                status: status, content: media(response.content, examples: true),
                links: samples ? links(response.links) : [])
        }
    }

    /// A response's links, those that cannot be found left out.
    private func links(_ map: OpenAPI.Link.Map) -> [APILink] {
        func value(_ either: Either<OpenAPI.RuntimeExpression, AnyCodable>) -> APILink.Value {
            switch either {
            case .a(let expression): .expression(expression.rawValue)
            case .b(let constant): .constant(Self.value(constant))
            }
        }
        return map.compactMap { name, either -> APILink? in
            guard let link = document.components[either] else { return nil }
            var operationID: String?
            var reference: String?
            switch link.operation {
            case .a(let url): reference = url.absoluteString
            case .b(let id): operationID = id
            }
            return APILink(
                name: name, operationID: operationID, operationReference: reference,
                parameters: link.parameters.map { (name: $0.key, value: value($0.value)) },
                requestBody: link.requestBody.map(value))
        }
    }

    /// The first of a parameter's `examples` that has a value.
    private func firstExample(_ examples: OpenAPI.Example.Map?) -> Value? {
        for (_, example) in examples ?? [:] {
            if let example = document.components[example], let value = example.dataOrLegacyValue {
                return Self.value(value)
            }
        }
        return nil
    }

    /// The media types of a body; with `examples`, a JSON one's examples too (responses: what they show
    /// is never an unknown field).
    private func media(_ map: OpenAPI.Content.Map, examples: Bool = false) -> [APIMediaType] {
        map.compactMap { type, either -> APIMediaType? in
            guard let content = document.components[either] else { return nil }
            let name = type.typeAndSubtype.lowercased()
            var values: [Value] = []
            if examples, APIMediaType.isJSON(name) || samples {
                if let example = content.example { values.append(Self.value(example)) }
                for (_, example) in content.examples ?? [:] {
                    guard let example = document.components[example], let value = example.dataOrLegacyValue else {
                        continue
                    }
                    values.append(Self.value(value))
                }
            }
            return APIMediaType(type: name, schema: content.schema.map(convert), examples: values)
        }
    }

    // MARK: Schemas

    private func referenced(_ reference: JSONReference<JSONSchema>) -> APISchema {
        guard let name = reference.name, reference.isInternal,
            case .component = reference.internalValue
        else { return .any }
        return APISchema(reference: name)
    }

    /// One JSON Schema, with references kept by name (so recursive schemas stay finite); with `samples`, its
    /// example (`examples`' first, else `default`) and `format`.
    func convert(_ schema: JSONSchema) -> APISchema {
        let shape = convertShape(schema)
        guard samples else { return shape }
        let core = schema.coreContext
        return shape.with(
            example: (core.examples.first ?? core.defaultValue).map(Self.value), format: core.formatString)
    }

    private func convertShape(_ schema: JSONSchema) -> APISchema {
        let core = schema.coreContext
        let enumValues = core.allowedValues.map { $0.map(Self.value) }
        let description = core.description
        func types(_ type: APIType) -> Set<APIType> { core.nullable ? [type, .null] : [type] }
        switch schema.value {
        case .null:
            return APISchema(types: [.null])
        case .boolean:
            return APISchema(types: types(.boolean), enumValues: enumValues, description: description)
        case .number:
            return APISchema(types: types(.number), enumValues: enumValues, description: description)
        case .integer:
            return APISchema(types: types(.integer), enumValues: enumValues, description: description)
        case .string(_, let context):
            return APISchema(
                types: types(.string), enumValues: enumValues, pattern: context.pattern, description: description)
        case .object(_, let context):
            let properties = context.properties.map { (name: $0.key, schema: convert($0.value)) }
            let additional: APISchema.AdditionalProperties
            switch context.additionalProperties {
            case nil: additional = .unspecified
            case .a(let allowed)?: additional = allowed ? .allowed : .forbidden
            case .b(let inner)?: additional = .schema(convert(inner))
            }
            return APISchema(
                types: types(.object), properties: properties, required: Set(context.requiredProperties),
                additionalProperties: additional, enumValues: enumValues, description: description)
        case .array(_, let context):
            return APISchema(
                types: types(.array), items: context.items.map(convert), enumValues: enumValues,
                description: description)
        case .all(let parts, _):
            // `enum` beside `allOf` (`{type: integer, enum: [0, 2], allOf: [$ref: ChannelTypes]}`, as
            // Discord's description writes a subset of a shared enum) still limits the values.
            return APISchema(types: nil, enumValues: enumValues, allOf: parts.map(convert), description: description)
        case .one(let parts, _):
            return APISchema(
                types: nil, enumValues: enumValues, oneOf: nullable(parts.map(convert), core.nullable),
                description: description)
        case .any(let parts, _):
            return APISchema(
                types: nil, enumValues: enumValues, anyOf: nullable(parts.map(convert), core.nullable),
                description: description)
        case .not:
            return .any
        case .reference(let reference, _):
            let target = referenced(reference)
            if core.nullable { return APISchema(anyOf: [target, APISchema(types: [.null])], description: description) }
            // A description beside the reference (3.1) says what this use of the schema is.
            return description.map { APISchema(reference: target.reference, description: $0) } ?? target
        case .fragment:
            return APISchema(enumValues: enumValues, description: description)
        }
    }

    private func nullable(_ choices: [APISchema], _ isNullable: Bool) -> [APISchema] {
        isNullable ? choices + [APISchema(types: [.null])] : choices
    }

    /// An `enum` entry as a value (through its JSON encoding).
    static func value(_ any: AnyCodable) -> Value {
        guard let data = try? JSONEncoder().encode(any), let value = try? Value.parseJSON(bytes: Array(data)) else {
            return .null
        }
        return value
    }
}
