import Foundation
import HTTPTypes
import Hummingbird

extension DemoRoutes {
    /// `/items`: list, create and import; `/items/{id}`: read, replace, patch and delete.
    /// Orders placed through `/cart/{id}/order` are items too (`/items/order-N`).
    func registerItems(on router: Router<DemoContext>) {
        /// `GET /items` — `{"items", "count", "total"}`; filters: `kind`, `unread=true|false`,
        /// `tag` (repeatable: every tag must be present), `limit` (1–1000, default 50).
        router.get("/items") { request, _ in
            let kind = Self.queryValue(request, "kind")
            let unread: Bool? =
                switch Self.queryValue(request, "unread") {
                case nil: nil
                case "true": true
                case "false": false
                default: throw HTTPError(.badRequest, message: "`unread` must be `true` or `false`")
                }
            let tags = Self.query(request, "tag")
            let limit = try Self.queryInteger(request, "limit", in: 1...1000) ?? 50
            let matching = state.storage.withLock { $0.allItems }.filter { item in
                if let kind, item["kind"]?.string != kind { return false }
                if let unread, item["unread"] != .bool(unread) { return false }
                let itemTags = item["tags"]?.elements ?? []
                return tags.allSatisfy { itemTags.contains(.string($0)) }
            }
            return Self.json([
                "items": .list(Array(matching.prefix(limit))), "count": .int(min(limit, matching.count)),
                "total": .int(matching.count),
            ])
        }

        /// `POST /items` — a JSON object creates one item: 201 with the item, its new numeric `id`
        /// first. A JSON list of objects imports them all: 201 `{"ids": [...], "count": N}`.
        /// `?tag=` values (repeatable) are added to the `tags` of every item created.
        router.post("/items") { request, _ in
            let extraTags = Self.query(request, "tag")
            switch try await Self.bodyValue(of: request) {
            case .object(let members)?:
                let item = state.storage.withLock {
                    $0.createItem(Self.addingTags(extraTags, to: .object(members)))
                }
                return Self.json(item, status: .created, headers: Self.location(of: item))
            case .list(let elements)?:
                for (index, element) in elements.enumerated() where element.members == nil {
                    throw HTTPError(.badRequest, message: "element \(index) of the import is not an object")
                }
                let ids = state.storage.withLock { store in
                    elements.map { store.createItem(Self.addingTags(extraTags, to: $0))["id"] ?? .null }
                }
                return Self.json(["ids": .list(ids), "count": .int(ids.count)], status: .created)
            default:
                throw HTTPError(.badRequest, message: "expected a JSON object (one item) or a list of objects (import)")
            }
        }

        /// `GET /items/{id}` — the item, 404 when there is none. Query parameters are ignored.
        router.get("/items/{id}") { _, context in
            let key = try Self.parameter(context, "id")
            guard let item = state.storage.withLock({ $0.items[key] }) else { throw Self.noItem(key) }
            return Self.json(item)
        }

        /// `PUT /items/{id}` — replaces the item's fields with the JSON object sent (200), or creates
        /// the item under that id (201). A numeric id stays a number.
        router.put("/items/{id}") { request, context in
            let key = try Self.parameter(context, "id")
            guard let fields = try await Self.bodyValue(of: request), fields.members != nil else {
                throw HTTPError(.badRequest, message: "expected a JSON object")
            }
            let (item, created) = state.storage.withLock { $0.putItem(key, fields: fields) }
            return Self.json(item, status: created ? .created : .ok, headers: created ? Self.location(of: item) : [:])
        }

        /// `PATCH /items/{id}` — a JSON merge patch (RFC 7396, top level): members set, `null` removes.
        router.patch("/items/{id}") { request, context in
            let key = try Self.parameter(context, "id")
            guard let patch = try await Self.bodyValue(of: request), patch.members != nil else {
                throw HTTPError(.badRequest, message: "expected a JSON object")
            }
            guard let item = state.storage.withLock({ $0.patchItem(key, patch: patch) }) else { throw Self.noItem(key) }
            return Self.json(item)
        }

        /// `DELETE /items/{id}` — 204, or 404 when there is no such item.
        router.delete("/items/{id}") { _, context in
            let key = try Self.parameter(context, "id")
            guard state.storage.withLock({ $0.deleteItem(key) }) else { throw Self.noItem(key) }
            return Response(status: .noContent)
        }
    }

    /// The 404 of a missing item.
    static func noItem(_ key: String) -> HTTPError {
        HTTPError(.notFound, message: "item `\(key)` does not exist")
    }

    /// `Location: /items/{id}` of an item.
    static func location(of item: JSON) -> HTTPFields {
        guard let id = item["id"]?.scalarText else { return [:] }
        return [.location: "/items/" + encodePathSegment(id)]
    }

    /// `item` with `tags` added to its `tags` list (created when absent), without duplicates.
    static func addingTags(_ tags: [String], to item: JSON) -> JSON {
        guard !tags.isEmpty else { return item }
        var list = item["tags"]?.elements ?? []
        for tag in tags where !list.contains(.string(tag)) { list.append(.string(tag)) }
        return item.setting("tags", to: .list(list))
    }
}
