/// The schema of a request: `request` (at most one body), `auth`, headers, parameters and multipart parts.
extension SchemaBuilder {
    /// `request` … `multipartPartMapping`, in the order they are printed.
    mutating func requestDefinitions() -> SchemaJSON {
        let bodies = PlanReader.bodyKeys
        // At most one body: each body key forbids the others.
        let oneBody = SchemaJSON.object(
            bodies.map { body in .init(key: body, value: Self.forbidding(bodies.filter { $0 != body })) })
        return [
            "request": closedObject(
                "a request",
                [
                    "description": .string(
                        "One HTTP request: `url` (required, unless `operation` names an operation of a bound API description), `method`, `query`, `headers`, at most one body ("
                            + bodies.map { "`\($0)`" }.joined(separator: ", ")
                            + "), `auth` and `follow_redirects`. Credentials in the URL (`http://user:password@host/`) are sent as basic credentials unless `auth` or an `Authorization` header is in force."
                    ),
                    "type": "object",
                    // `url`, or `operation` (which gives the method and URL: neither is written, RP0104).
                    "anyOf": [
                        ["required": ["url"]],
                        ["required": ["operation"], "properties": ["method": false, "url": false]],
                    ],
                ],
                keys: PlanReader.requestKeys,
                properties: [
                    "operation": [
                        "description":
                            "An operation of a bound API description, `API.operationId` (grammar.md §6.9): it gives the method and URL, so `method` and `url` are not written (RP0104).",
                        "type": "string",
                        "pattern": #"^[A-Za-z_][A-Za-z0-9_-]*\.[\s\S]+"#,
                    ],
                    "path": Self.ref(
                        "parameters", "Values of the operation's path parameters (with `operation` only)."),
                    "method": Self.ref("method"),
                    "url": [
                        "description":
                            "Absolute (`http://…`, `https://…`) or relative to `defaults.base_url` (which must then be set, RP0105). A text template. A URL written without `${{ }}` MUST NOT be empty, and when it starts with a scheme and `://` the scheme MUST be http or https (RP0105); `/login?next=https://x/` is relative.",
                        "type": ["string", "number", "boolean"],
                        "minLength": 1,
                        "pattern":
                            #"^(?:[\s\S]*\$\{\{[\s\S]*|(?![A-Za-z][A-Za-z0-9+.-]*://)[\s\S]+|[hH][tT][tT][pP][sS]?://[\s\S]*)(?![\s\S])"#,
                        "patternErrorMessage": "A URL is relative or starts with `http://` or `https://`.",
                    ],
                    "query": Self.ref(
                        "parameters",
                        "Query parameters appended to the URL, percent-encoded. A list repeats the parameter; a value that is one `${{ }}` giving null leaves the parameter out."
                    ),
                    "headers": Self.ref(
                        "headers", "Request headers (a header of `defaults.headers` with the same name is replaced)."),
                    "json": Self.ref(
                        "value",
                        "Body: any YAML value, sent as JSON (`application/json`). A string that is exactly one `${{ }}` keeps its type."
                    ),
                    "form": Self.ref(
                        "parameters", "Body: name → value or list, sent as `application/x-www-form-urlencoded`."),
                    "multipart": Self.ref("multipart"),
                    "body": Self.ref(
                        "textTemplate", "Body: raw text, sent as written (UTF-8, `text/plain; charset=utf-8`)."),
                    "body_file": Self.ref(
                        "textTemplate",
                        "Body: the bytes of a file, path relative to the plan file (`application/octet-stream`)."),
                    "auth": Self.ref(
                        "auth",
                        "Credentials sent as the `Authorization` header; replaces `defaults.auth` and a default `Authorization` header."
                    ),
                    "follow_redirects": Self.ref("followRedirects"),
                ],
                then: [
                    "allOf": [
                        Self.ref("authExcludesAuthorizationHeader"),
                        [
                            "description": "A TRACE request has no body (RFC 9110; RP0104).",
                            "if": [
                                "required": ["method"],
                                "properties": ["method": ["const": .string(HTTPMethodName.TRACE.rawValue)]],
                            ],
                            "then": Self.forbidding(bodies),
                        ],
                    ],
                    "dependentSchemas": oneBody,
                ]),
            "auth": closedObject(
                "`auth`",
                [
                    "description":
                        "Credentials: `{ basic: { username, password } }` (`Authorization: Basic` and the base64 of `username:password`), `{ bearer: TOKEN }` (`Authorization: Bearer TOKEN`), `{ oauth2: { … } }` (a bearer token from an OAuth 2.0 token endpoint, fetched once per grant and renewed), `{ api_key: { header | query | cookie: NAME, value } }`, `{ aws_sigv4: { … } }` (AWS Signature Version 4) or `{ digest: { username, password } }` (HTTP Digest); expressions allowed. They are hidden in every output, the base64 form and the tokens included. Exactly one kind (RP0104 for two, RP0103 for none).",
                    "type": "object",
                ],
                keys: PlanReader.authKeys,
                properties: [
                    "basic": Self.ref("basicAuth"),
                    "bearer": Self.ref("headerLineText", "The token, sent as `Authorization: Bearer TOKEN`."),
                    "oauth2": Self.ref("oauth2Auth"),
                    "api_key": Self.ref("apiKeyAuth"),
                    "aws_sigv4": Self.ref("awsSigV4Auth"),
                    "digest": Self.ref(
                        "basicAuth", "HTTP Digest credentials (RFC 7616): the answer to the server's challenge."),
                ],
                then: [
                    "oneOf": Self.exactlyOne(
                        of: PlanReader.authKeys,
                        titles: [
                            "basic credentials", "a bearer token", "an OAuth 2.0 grant", "an API key",
                            "an AWS Signature Version 4", "digest credentials",
                        ])
                ]),
            "awsSigV4Auth": closedObject(
                "`aws_sigv4`",
                [
                    "description":
                        "AWS Signature Version 4: each request is signed as it is sent (`Authorization`, `X-Amz-Date`, `X-Amz-Content-Sha256`, and `X-Amz-Security-Token` with a session token). The secret key, the session token and the signature are secrets in every output.",
                    "type": "object",
                    "required": ["access_key_id", "secret_access_key", "region", "service"],
                ],
                keys: PlanReader.awsSigV4Keys,
                properties: [
                    "access_key_id": Self.ref("headerLineText", "The access key id."),
                    "secret_access_key": Self.ref("textTemplate", "The secret access key."),
                    "session_token": Self.ref("headerLineText", "The session token of temporary credentials."),
                    "region": Self.ref("textTemplate", "The region (`us-east-1`)."),
                    "service": Self.ref("textTemplate", "The service's signing name (`s3`, `execute-api`, `sts`)."),
                    "unsigned_payload": [
                        "description":
                            "Send `X-Amz-Content-Sha256: UNSIGNED-PAYLOAD` instead of the body's hash (S3 over https).",
                        "type": "boolean",
                    ],
                ]),
            "oauth2Auth": closedObject(
                "`oauth2`",
                [
                    "description":
                        "An OAuth 2.0 grant (RFC 6749): the run asks `token_url` for an access token once per distinct grant, sends it as `Authorization: Bearer`, renews it before `expires_in` runs out and once after a 401 that says it is invalid. The keys a grant needs are required (RP0103) and the ones it does not send refused (RP0104). Values are text templates.",
                    "type": "object",
                    "required": ["client_id"],
                ],
                keys: PlanReader.oauth2Keys,
                properties: [
                    "grant": [
                        "description":
                            "`client_credentials` (the default: the client's own credentials), `refresh_token` (a refresh token from a secret input), `password` (legacy: a user's name and password) or `authorization_code` (a user's consent in a browser, with PKCE; the run listens on loopback for the redirect).",
                        "enum": Self.words(OAuth2Auth.Grant.self),
                    ],
                    "token_url": Self.ref(
                        "textTemplate",
                        "The token endpoint; `https` unless on loopback (RP0118)."),
                    "issuer": Self.ref(
                        "textTemplate",
                        "An OpenID Connect issuer: the token endpoint is read from its `/.well-known/openid-configuration`; `https` unless on loopback (RP0118)."
                    ),
                    "client_id": Self.ref("headerLineText", "The client's id."),
                    "client_secret": Self.ref(
                        "textTemplate",
                        "The client's secret (required by `client_credentials` but with `private_key_jwt`); a secret in every output."
                    ),
                    "client_auth": [
                        "description":
                            "How the client authenticates: `client_secret_basic` (the default: HTTP Basic with the form-encoded id and secret), `client_secret_post` (both in the form) or `private_key_jwt` (an assertion signed with `private_key`, RFC 7523).",
                        "enum": Self.words(OAuth2Auth.ClientAuthentication.self),
                    ],
                    "scope": [
                        "description":
                            "The scopes asked for: a list, or one string of names separated by spaces (RFC 6749 §3.3).",
                        "anyOf": [
                            ["type": "string"],
                            ["type": "array", "items": ["type": "string", "pattern": "^[!#-\\[\\]-~]+$"]],
                        ],
                    ],
                    "audience": Self.ref("textTemplate", "The `audience` parameter some servers want (Auth0, Okta)."),
                    "refresh_token": Self.ref(
                        "textTemplate", "The refresh token of the `refresh_token` grant; a secret in every output."),
                    "username": Self.ref("textTemplate", "The user's name, for the `password` grant."),
                    "password": Self.ref(
                        "textTemplate", "The user's password, for the `password` grant; a secret in every output."),
                    "private_key": Self.ref(
                        "textTemplate",
                        "The PEM private key (RSA of 2,048 bits or more, EC P-256, P-384 or P-521, Ed25519) that signs the client's assertion, for `client_auth: private_key_jwt`; a secret in every output."
                    ),
                    "key_id": Self.ref(
                        "textTemplate", "The `kid` of the assertion's header, for `client_auth: private_key_jwt`."),
                    "authorization_url": Self.ref(
                        "textTemplate",
                        "The authorization endpoint of the `authorization_code` grant (required with `token_url`; with `issuer`, read from its discovery document when left out); `https` unless on loopback (RP0118)."
                    ),
                    "redirect_port": [
                        "description":
                            "The loopback port the `authorization_code` grant's redirect comes to (`http://127.0.0.1:PORT/callback`), for a provider that registers an exact redirect URI; by default one the system picks (RFC 8252 §7.3).",
                        "type": "integer", "minimum": 1, "maximum": 65535,
                    ],
                ],
                then: [
                    "oneOf": Self.exactlyOne(of: ["token_url", "issuer"], titles: ["a token endpoint", "an issuer"]),
                    "allOf": [
                        [
                            "if": ["properties": ["grant": ["const": "refresh_token"]], "required": ["grant"]],
                            "then": ["required": ["refresh_token"]] + Self.forbidding(["username", "password"]),
                        ],
                        [
                            "if": ["properties": ["grant": ["const": "password"]], "required": ["grant"]],
                            "then": ["required": ["username", "password"]] + Self.forbidding(["refresh_token"]),
                        ],
                        [
                            "if": [
                                "anyOf": [
                                    ["not": ["required": ["grant"]]],
                                    ["properties": ["grant": ["const": "client_credentials"]]],
                                ]
                            ],
                            "then": Self.forbidding(["refresh_token", "username", "password"]),
                        ],
                        [
                            "if": [
                                "anyOf": [
                                    ["not": ["required": ["grant"]]],
                                    ["properties": ["grant": ["const": "client_credentials"]]],
                                ],
                                "not": Self.signsAssertion,
                            ],
                            "then": ["required": ["client_secret"]],
                        ],
                        [
                            "if": Self.signsAssertion,
                            "then": ["required": ["private_key"]] + Self.forbidding(["client_secret"]),
                            "else": Self.forbidding(["private_key", "key_id"]),
                        ],
                        [
                            "if": ["properties": ["grant": ["const": "authorization_code"]], "required": ["grant"]],
                            "then": Self.forbidding(["refresh_token", "username", "password"])
                                + ["anyOf": [["required": ["authorization_url"]], ["required": ["issuer"]]]],
                            "else": Self.forbidding(PlanReader.authorizationCodeKeys),
                        ],
                    ],
                ]),
            "apiKeyAuth": closedObject(
                "`api_key`",
                [
                    "description":
                        "An API key: exactly one of `header`, `query` and `cookie` names where it goes (RP0104 for two, RP0103 for none); `value` is the key, a secret in every output.",
                    "type": "object",
                    "required": ["value"],
                ],
                keys: PlanReader.apiKeyKeys,
                properties: [
                    "header": Self.ref("headerName", "The header the key goes in."),
                    "query": ["description": "The query parameter the key goes in.", "type": "string", "minLength": 1],
                    "cookie": ["description": "The cookie the key goes in.", "type": "string", "minLength": 1],
                    "value": Self.ref("headerLineText", "The key."),
                ],
                then: [
                    "oneOf": Self.exactlyOne(
                        of: ["header", "query", "cookie"], titles: ["in a header", "in the query", "in a cookie"])
                ]),
            "basicAuth": closedObject(
                "`basic`",
                [
                    "description":
                        #"Basic credentials (RFC 7617): `username` and `password`, both required (RP0103); an empty password is `""`."#,
                    "type": "object",
                    "required": Self.strings(PlanReader.basicAuthKeys),
                ],
                keys: PlanReader.basicAuthKeys,
                properties: [
                    "username": Self.ref("textTemplate", "The user name."),
                    "password": Self.ref("textTemplate", "The password."),
                ]),
            "authExcludesAuthorizationHeader": [
                "description":
                    "`auth` (but for an API key) writes the `Authorization` header, so the same request (or `defaults`) cannot also set one (RP0104); an API key's own header is checked the same way by `validate`.",
                "if": ["required": ["auth"], "properties": ["auth": ["not": ["required": ["api_key"]]]]],
                "then": [
                    "properties": [
                        "headers": [
                            "propertyNames": [
                                "not": ["pattern": .string(Self.anchored(Self.ignoringCase("Authorization")))]
                            ]
                        ]
                    ]
                ],
            ],
            "followRedirects": [
                "description":
                    "Whether 3xx redirects are followed (default `true`: up to 10, by the method rules of browsers and AsyncHTTPClient). With `false` the 3xx response itself is the step's response, so `expect` can check its status and `Location`. A request's own setting wins over `defaults`.",
                "type": "boolean",
            ],
            "headers": Self.map(
                [
                    "description":
                        "Header name (an HTTP token, RFC 9110) → text template. Names MUST NOT repeat ignoring case (RP0003); values are text (numbers and booleans as written; null is RP0102) without control characters but a tab (RP0517).",
                    "type": ["object", "null"],
                ], names: "headerNameKey", values: Self.ref("headerLineText")),
            "parameters": Self.map(
                [
                    "description":
                        "Parameter name → a scalar, a template, or a list of scalars/templates (a list repeats the parameter). A mapping, or a list holding a list or mapping, is RP0102.",
                    "type": ["object", "null"],
                ], values: Self.ref("parameterValue")),
            "parameterValue": [
                "description": "A scalar (strings may hold `${{ }}`), or a list of scalars that repeats the parameter.",
                "type": ["string", "number", "boolean", "null", "array"],
                "items": ["type": ["string", "number", "boolean", "null"]],
            ],
            "multipart": Self.map(
                [
                    "description": "Body: part name → part, sent as `multipart/form-data` with a generated boundary.",
                    "type": ["object", "null"],
                    "propertyNames": ["pattern": "^[^\\u0000-\\u0008\\u000A-\\u001F\\u007F]*$"],
                ], values: Self.ref("multipartPart")),
            "multipartPart": [
                "description":
                    "A part: text (a text field), `{ value: text, content_type }` (a text field with a content type) or `{ file: path, content_type, filename }` (a file, path relative to the plan). A list is not a part (RP0102).",
                "anyOf": [Self.ref("textTemplate"), Self.ref("multipartPartMapping")],
            ],
            "multipartPartMapping": closedObject(
                "a multipart part",
                [
                    "description": "A part with exactly one of `file` and `value` (both: RP0104; neither: RP0103).",
                    "type": "object",
                ],
                keys: PlanReader.multipartKeys,
                properties: [
                    "value": Self.ref("textTemplate", "The field's text."),
                    "file": Self.ref("textTemplate", "Path of the file to send, relative to the plan file."),
                    "content_type": Self.ref(
                        "headerLineText",
                        "The part's Content-Type (default: none for text fields, `application/octet-stream` for files)."
                    ),
                    "filename": Self.ref(
                        "headerLineText",
                        "The file name sent (default: the last component of `file`). File parts only (RP0114 on a `value` part)."
                    ),
                ],
                then: [
                    "oneOf": [
                        ["title": "file part", "required": ["file"]] + Self.forbidding(["value"]),
                        ["title": "text part", "required": ["value"]] + Self.forbidding(["file", "filename"]),
                    ]
                ]),
        ]
    }

    /// One `oneOf` branch per key: it is required and the others are forbidden.
    /// An `oauth2` whose client proves itself with a signed assertion (`client_auth: private_key_jwt`).
    static let signsAssertion: SchemaJSON = [
        "properties": ["client_auth": ["const": "private_key_jwt"]], "required": ["client_auth"],
    ]

    static func exactlyOne(of keys: [String], titles: [String]) -> SchemaJSON {
        .array(
            zip(keys, titles).map { key, title in
                ["title": .string(title), "required": Self.strings([key])]
                    + Self.forbidding(keys.filter { $0 != key })
            })
    }

    /// A pattern matching `word` in any case (`[Aa][Bb]…`; JSON Schema patterns have no flags).
    static func ignoringCase(_ word: String) -> String {
        word.map { character in
            let upper = character.uppercased()
            let lower = character.lowercased()
            return upper == lower ? String(character) : "[\(upper)\(lower)]"
        }.joined()
    }
}
