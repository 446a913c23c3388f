/// The demo API's OpenAPI document, served at `GET /openapi.yaml`: the text of `plans/_openapi/demo-api.yaml`
/// (a test keeps them equal). Embedded rather than a bundle resource, so that `reqplan demo` works wherever
/// its binary is copied.
enum DemoAPIDescription {
    /// The document, OpenAPI 3.1 in YAML.
    static let yaml = #"""
        # The demo API's own description (OpenAPI 3.1), served at `GET /openapi.yaml` (the demo API embeds this
        # text: `Sources/ReqPlanDemoAPI/DemoAPIDescription.swift`; a test keeps the two equal). Example plans in
        # `plans/` bind it; the file starts with `_` so that suites and `reqplan demo` do not read it as a plan.
        openapi: 3.1.0
        info:
          title: reqplan demo API
          version: "1"
        paths:
          /health:
            get:
              operationId: health
              responses:
                "200":
                  description: The API is up.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [ok]
                        properties:
                          ok: { type: boolean }
          /login:
            post:
              operationId: login
              requestBody:
                required: true
                content:
                  application/json:
                    schema: { $ref: "#/components/schemas/Credentials" }
                  application/x-www-form-urlencoded:
                    schema: { $ref: "#/components/schemas/Credentials" }
              responses:
                "200":
                  description: A session.
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Session" }
                "400": { $ref: "#/components/responses/Error" }
          /items:
            get:
              operationId: listItems
              parameters:
                - { name: kind, in: query, schema: { type: string, enum: [product, notification, message] } }
                - { name: unread, in: query, schema: { type: boolean } }
                - { name: tag, in: query, schema: { type: array, items: { type: string } } }
                - { name: limit, in: query, schema: { type: integer, minimum: 1, maximum: 1000 } }
              responses:
                "200":
                  description: The items that match.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [items, count, total]
                        properties:
                          items: { type: array, items: { $ref: "#/components/schemas/Item" } }
                          count: { type: integer }
                          total: { type: integer }
                "400": { $ref: "#/components/responses/Error" }
            post:
              operationId: createItem
              parameters:
                - { name: tag, in: query, schema: { type: array, items: { type: string } } }
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      oneOf:
                        - { $ref: "#/components/schemas/NewItem" }
                        - { type: array, items: { $ref: "#/components/schemas/NewItem" } }
              responses:
                "201":
                  description: The item created (an object sent), or the ids of those imported (a list sent).
                  content:
                    application/json:
                      schema:
                        oneOf:
                          - { $ref: "#/components/schemas/Item" }
                          - type: object
                            required: [ids, count]
                            properties:
                              ids: { type: array, items: { $ref: "#/components/schemas/ItemID" } }
                              count: { type: integer }
                "400": { $ref: "#/components/responses/Error" }
          /items/{id}:
            parameters:
              - { name: id, in: path, required: true, schema: { type: string } }
            get:
              operationId: getItem
              parameters:
                - { name: fresh, in: query, schema: { type: boolean } }
              responses:
                "200":
                  description: The item.
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Item" }
                "404": { $ref: "#/components/responses/Error" }
            put:
              operationId: replaceItem
              requestBody:
                required: true
                content:
                  application/json:
                    schema: { $ref: "#/components/schemas/NewItem" }
              responses:
                "200":
                  description: The item, replaced.
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Item" }
                "201":
                  description: The item, created under this id.
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Item" }
                "400": { $ref: "#/components/responses/Error" }
            patch:
              operationId: patchItem
              requestBody:
                required: true
                content:
                  application/merge-patch+json:
                    schema: { type: object }
                  application/json:
                    schema: { type: object }
              responses:
                "200":
                  description: The item, patched.
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Item" }
                "404": { $ref: "#/components/responses/Error" }
            delete:
              operationId: deleteItem
              responses:
                "204": { description: Deleted. }
                "404": { $ref: "#/components/responses/Error" }
          /stock-report:
            get:
              operationId: stockReport
              description: >-
                Stock per product. The demo API answers it off-spec on purpose (`in_stock` as text): the run-time
                response check fails it.
              responses:
                "200":
                  description: Stock per SKU.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [products]
                        properties:
                          products:
                            type: array
                            items:
                              type: object
                              required: [sku, in_stock]
                              properties:
                                sku: { type: string }
                                in_stock: { type: integer }
        components:
          schemas:
            Credentials:
              type: object
              required: [user]
              properties:
                user: { type: string, minLength: 1, maxLength: 64 }
                password: { type: string }
                remember: { type: boolean }
            Session:
              type: object
              required: [token, token_type, expires_in, user]
              properties:
                token: { type: string }
                token_type: { type: string, enum: [Bearer] }
                expires_in: { type: integer }
                user:
                  type: object
                  required: [name, display_name, role]
                  properties:
                    name: { type: string }
                    display_name: { type: string }
                    role: { type: string }
            ItemID:
              description: A number for items created through `POST /items`; text for those named by `PUT` or orders.
              oneOf: [{ type: integer }, { type: string }]   # not `type: [integer, string]`: OpenAPIKit 6.4 keeps its first type only
            NewItem:
              type: object
              additionalProperties: true
              properties:
                kind: { type: string }
                sku: { type: string }
                name: { type: string }
                price: { type: number }
                stock: { type: integer }
                tags: { type: array, items: { type: string } }
                owner:
                  type: object
                  additionalProperties: true
                  properties:
                    user: { type: string }
                    since: { type: integer }
            Item:
              allOf:
                - type: object
                  required: [id]
                  properties:
                    id: { $ref: "#/components/schemas/ItemID" }
                - { $ref: "#/components/schemas/NewItem" }
            Error:
              type: object
              required: [error, status]
              properties:
                error: { type: string }
                status: { type: integer }
          responses:
            Error:
              description: What went wrong.
              content:
                application/json:
                  schema: { $ref: "#/components/schemas/Error" }
        """#
}
