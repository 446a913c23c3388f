/// The JSON Schema (draft 2020-12) of the plan format, version 1, for editors: `reqplan schema`
/// prints it, so the VS Code YAML extension and JetBrains IDEs complete, document and check plans.
///
/// The schema follows grammar.md (the normative reference; the descriptions are taken from it)
/// and must agree with the parser: `SchemaTests` checks that it is a valid draft 2020-12 schema,
/// that it accepts every plan in `plans/`, that it rejects the invalid plans of the golden corpus
/// whose problem is structural, and that its keys and enums are the parser's own tables. What a
/// schema cannot see (YAML syntax, references, cycles, expressions, ids repeated across nesting,
/// relative URLs without `base_url`) is left to `reqplan validate`.
///
/// Organisation:
/// - the root object lists the plan's keys, allows `x-…` extension keys, and refuses any other key;
/// - `$defs` holds everything reused, in this order: names and scalar formats (`name`, `nameKey`,
///   `headerName`, `text`, `textTemplate`, `value`, `literal`, `singleExpression`, `duration`,
///   `status`, `method`, `onFailure`, `concurrency`, `valueType`, `mergeKey`); `inputs`;
///   `defaults`; `outputs`; steps (`steps`, `step` with a `oneOf` of the five kinds, `needs`,
///   `condition`, `forEachItems`, `itemName`); requests (`request` with `dependentSchemas` for
///   "at most one body", `headers`, `parameters`, `multipart`…); `retry`; `poll`; `expect` and matchers.
///
/// Conventions:
/// - `additionalProperties: false` wherever the parser reports unknown keys (RP0101);
/// - where the parser reads an empty value (null) as an empty mapping, null is accepted;
/// - where a value may hold `${{ }}`, a string is accepted (`for_each` is a list or one `${{ }}`);
/// - every mapping also accepts a `<<` merge key, for editors that do not apply merges before
///   validating (those that do, and `reqplan` itself, never see it);
/// - `patternErrorMessage` is an annotation read by VS Code (other tools ignore it).
public enum PlanSchema {
    /// The schema as JSON text: pretty-printed, ending with a newline.
    public static let json: String = ##"""
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "https://reqplan.dev/schema/plan-1.json",
          "title": "reqplan plan (format version 1)",
          "description": "A reqplan plan: HTTP requests, how they depend on each other, and what their responses must look like. Independent steps run concurrently; a step starts when everything it depends on has ended. Descriptions are taken from grammar.md, the normative reference. The schema checks the structure of a plan; `reqplan validate` is the final judge (references, cycles and expressions are checked only there).",
          "$comment": "Patterns end with `(?![\\s\\S])` rather than `$`, which in some regex engines (Python's `re`) also matches before a final newline: a name, duration or status ending with a newline is refused everywhere, as by reqplan.",
          "type": "object",
          "required": [
            "reqplan",
            "steps"
          ],
          "properties": {
            "reqplan": {
              "description": "Format version; MUST be `1`. Required (RP0111); not an integer is RP0102, another number RP0112.",
              "type": "integer",
              "const": 1
            },
            "name": {
              "$ref": "#/$defs/text",
              "description": "A title, shown by `reqplan plan` and in reports. Text; `${{ }}` is not evaluated in it."
            },
            "description": {
              "$ref": "#/$defs/text",
              "description": "Free text; `${{ }}` is not evaluated in it."
            },
            "inputs": {
              "$ref": "#/$defs/inputs"
            },
            "defaults": {
              "$ref": "#/$defs/defaults"
            },
            "concurrency": {
              "$ref": "#/$defs/concurrency",
              "description": "Most requests in flight at once in the whole run (1–100 000). Without it, the number is unlimited. `reqplan run --concurrency N` replaces it."
            },
            "on_failure": {
              "$ref": "#/$defs/onFailure",
              "description": "What a failing top-level step does to the other top-level steps: `continue` (default) lets them go on; `fail_fast` cancels the running ones and the ones not started. Groups, sequences and for_each steps without their own `on_failure` inherit it."
            },
            "timeout": {
              "$ref": "#/$defs/duration",
              "description": "Limit for the whole run. When it expires, what is running is cancelled and what has not started ends `cancelled`."
            },
            "redact_headers": {
              "description": "One header name or a list. The values of these headers, in requests and responses, are shown as `***` in every output, in addition to `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`, which are always redacted.",
              "anyOf": [
                {
                  "$ref": "#/$defs/headerName"
                },
                {
                  "type": "array",
                  "items": {
                    "$ref": "#/$defs/headerName"
                  }
                }
              ]
            },
            "cookies": {
              "description": "Whether the run's cookie jar applies to the plan's requests (default `true`): with `false` no stored cookie is sent and no `Set-Cookie` is stored. A step's own `cookies` wins for its requests.",
              "type": "boolean",
              "default": true
            },
            "openapi": {
              "$ref": "#/$defs/openapi"
            },
            "vars": {
              "$ref": "#/$defs/vars"
            },
            "steps": {
              "$ref": "#/$defs/steps",
              "description": "What the plan does: a non-empty mapping of step id → step (RP0103 when missing, RP0115 when empty). Top-level steps with no dependencies between them start together; the order written matters only for display."
            },
            "outputs": {
              "$ref": "#/$defs/outputs"
            }
          },
          "patternProperties": {
            "^x-": {
              "description": "Extension key: ignored by reqplan (not checked, never run). The place to keep YAML anchors used only through aliases."
            },
            "^<<$": {
              "$ref": "#/$defs/mergeKey"
            }
          },
          "additionalProperties": false,
          "$defs": {
            "openapi": {
              "description": "API descriptions the plan's requests are checked against (grammar.md §4.13): name → an OpenAPI 3.0/3.1 document (YAML or JSON, relative to the plan's file), or `{ file, base_url }`.",
              "type": [
                "object",
                "null"
              ],
              "propertyNames": {
                "pattern": "^[A-Za-z_][A-Za-z0-9_-]*(?![\\s\\S])"
              },
              "additionalProperties": {
                "oneOf": [
                  {
                    "type": "string",
                    "minLength": 1
                  },
                  {
                    "type": "object",
                    "required": [
                      "file"
                    ],
                    "properties": {
                      "file": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The OpenAPI document, relative to the plan's file (a literal path)."
                      },
                      "base_url": {
                        "$ref": "#/$defs/textTemplate",
                        "description": "Where the API is served; `operation:` requests are sent below it. When absent, their paths are relative to `defaults.base_url`."
                      }
                    },
                    "additionalProperties": false
                  }
                ]
              }
            },
            "operation": {
              "description": "An operation of a bound API description, `API.operationId` (grammar.md §6.9): it gives the method and URL, so `method` and `url` are not written (RP0104).",
              "type": "string",
              "pattern": "^[A-Za-z_][A-Za-z0-9_-]*\\.[\\s\\S]+"
            },
            "pathParameters": {
              "$ref": "#/$defs/parameters",
              "description": "Values of the operation's path parameters (with `operation` only)."
            },
            "operationRequest": {
              "required": [
                "operation"
              ],
              "properties": {
                "method": false,
                "url": false
              }
            },
            "name": {
              "description": "A name: `[A-Za-z_][A-Za-z0-9_-]*` (ASCII letters only; RP0106 otherwise).",
              "type": "string",
              "pattern": "^[A-Za-z_][A-Za-z0-9_-]*(?![\\s\\S])",
              "patternErrorMessage": "A name starts with a letter or `_` and contains letters, digits, `_` and `-`."
            },
            "nameKey": {
              "description": "A step id, input name or output name: `[A-Za-z_][A-Za-z0-9_-]*` (RP0106 otherwise).",
              "type": "string",
              "pattern": "^(?:<<|[A-Za-z_][A-Za-z0-9_-]*)(?![\\s\\S])",
              "patternErrorMessage": "A name starts with a letter or `_` and contains letters, digits, `_` and `-`."
            },
            "headerName": {
              "description": "A header name: an HTTP token (RFC 9110) of letters, digits and ``!#$%&'*+-.^_`|~`` (RP0106 otherwise).",
              "type": "string",
              "pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?![\\s\\S])",
              "patternErrorMessage": "A header name is letters, digits and `!#$%&'*+-.^_`|~` (no spaces or `:`)."
            },
            "headerNameKey": {
              "description": "A header name: an HTTP token (RFC 9110) of letters, digits and ``!#$%&'*+-.^_`|~`` (RP0106 otherwise).",
              "type": "string",
              "pattern": "^(?:<<|[A-Za-z0-9!#$%&'*+.^_`|~-]+)(?![\\s\\S])",
              "patternErrorMessage": "A header name is letters, digits and `!#$%&'*+-.^_`|~` (no spaces or `:`)."
            },
            "text": {
              "description": "Text: a string, or a number or boolean taken as written. Null is not text (RP0102).",
              "type": [
                "string",
                "number",
                "boolean"
              ]
            },
            "textTemplate": {
              "description": "A text template: a string that may hold `${{ expression }}` (interpolated into the text), or a number or boolean taken as written. Null is not text (RP0102).",
              "type": [
                "string",
                "number",
                "boolean"
              ]
            },
            "value": {
              "description": "A value template: any YAML value. Strings may hold `${{ }}`; a string that is exactly one `${{ }}` keeps the type of its value (a list stays a list), other strings are interpolated text. Mapping keys are literal: a key with `${{` is RP0210.",
              "propertyNames": {
                "not": {
                  "pattern": "\\$\\{\\{"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/value"
              },
              "items": {
                "$ref": "#/$defs/value"
              }
            },
            "literal": {
              "description": "A literal YAML value: `${{ }}` is not evaluated here (RP0210).",
              "not": {
                "type": "string",
                "pattern": "\\$\\{\\{"
              },
              "propertyNames": {
                "not": {
                  "pattern": "\\$\\{\\{"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/literal"
              },
              "items": {
                "$ref": "#/$defs/literal"
              }
            },
            "singleExpression": {
              "description": "Exactly one `${{ expression }}`, with nothing before or after it.",
              "type": "string",
              "pattern": "^\\$\\{\\{(?:'(?:[^']|'')*'|\"(?:[^\"\\\\]|\\\\[\\s\\S])*\"|[^}'\"]|\\}(?!\\}))*\\}\\}(?![\\s\\S])",
              "patternErrorMessage": "Write exactly one `${{ … }}` with nothing around it (text around it makes a string)."
            },
            "duration": {
              "description": "A duration: whole numbers with units `ms`, `s`, `m`, `h`, components added (`250ms`, `5s`, `2m`, `1h`, `1m30s`). A string longer than zero and at most 7 days (`168h`); no decimals, spaces or other units (RP0108).",
              "type": "string",
              "pattern": "^(?=[0-9hms]*[1-9])(?:[0-9]+(?:ms|s|m|h))+(?![\\s\\S])",
              "patternErrorMessage": "A duration is a whole number and a unit (`ms`, `s`, `m`, `h`) with no space, such as `250ms`, `5s`, `2m` or `1m30s`.",
              "examples": [
                "250ms",
                "5s",
                "2m",
                "1m30s"
              ]
            },
            "status": {
              "description": "A status: an exact code from `100` to `599`, or a class `1xx`–`5xx` (`2XX` too). RP0109 otherwise.",
              "anyOf": [
                {
                  "type": "integer",
                  "minimum": 100,
                  "maximum": 599
                },
                {
                  "type": "string",
                  "pattern": "^(?:[1-5][0-9]{2}|[1-5][xX]{2})(?![\\s\\S])",
                  "patternErrorMessage": "A status is a code from 100 to 599 or a class from `1xx` to `5xx`."
                }
              ],
              "examples": [
                200,
                "2xx"
              ]
            },
            "method": {
              "description": "The HTTP method, in capitals (RP0110 otherwise). Not a template. Idempotent methods (all but `POST` and `PATCH`) are retried without `unsafe`.",
              "enum": [
                "GET",
                "HEAD",
                "POST",
                "PUT",
                "PATCH",
                "DELETE",
                "OPTIONS",
                "TRACE"
              ],
              "default": "GET"
            },
            "onFailure": {
              "description": "`continue` (default): the others go on, and steps depending on the failed one are skipped unless their `if:` says otherwise. `fail_fast`: running siblings in the scope are cancelled at once and those not started end `cancelled`, `always()` steps included. RP0105 otherwise.",
              "enum": [
                "continue",
                "fail_fast"
              ],
              "default": "continue"
            },
            "concurrency": {
              "description": "Most requests in flight at once (1–100 000; RP0102 if not an integer, RP0105 if out of range).",
              "type": "integer",
              "minimum": 1,
              "maximum": 100000
            },
            "valueType": {
              "description": "A value type of the language: `string`, `number`, `boolean`, `list`, `object` or `null` (RP0105 otherwise).",
              "enum": [
                "string",
                "number",
                "boolean",
                "list",
                "object",
                "null"
              ]
            },
            "mergeKey": {
              "description": "YAML merge key: `<<: *anchor` merges one mapping, `<<: [*a, *b]` several (an earlier one wins); keys written in the mapping itself win over merged keys. The value MUST be a mapping or a list of mappings (RP0102).",
              "anyOf": [
                {
                  "type": "object"
                },
                {
                  "type": "array",
                  "items": {
                    "type": "object"
                  }
                }
              ]
            },
            "inputs": {
              "description": "The plan's parameters: input name → declaration `{ type, default, env, secret, required, description }`, or a shorthand `name: value` (a scalar or a list, meaning `{ default: value }`), or `name:` (empty) for a required string input. Given with `--input name=value` when the plan runs.",
              "type": [
                "object",
                "null"
              ],
              "propertyNames": {
                "$ref": "#/$defs/nameKey"
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/input"
              }
            },
            "input": {
              "description": "An input: a declaration (a mapping), a shorthand default (a scalar or a list), or empty for a required string input. A mapping is always a declaration: write `{ type: object, default: { … } }` to give an object as default.",
              "anyOf": [
                {
                  "$ref": "#/$defs/inputDeclaration"
                },
                {
                  "$ref": "#/$defs/inputShorthand"
                }
              ]
            },
            "inputShorthand": {
              "description": "Shorthand for `{ default: value }`: a scalar or a list, with no `${{ }}`. Empty (null) declares a required input of type `string`.",
              "type": [
                "string",
                "number",
                "boolean",
                "array",
                "null"
              ],
              "allOf": [
                {
                  "$ref": "#/$defs/literal"
                }
              ]
            },
            "inputDeclaration": {
              "description": "An input declaration. The input is required when it says `required: true`, or has neither `default` nor `env` (and does not say `required: false`).",
              "type": "object",
              "properties": {
                "type": {
                  "$ref": "#/$defs/valueType",
                  "description": "The value's type (default: the default's type, else `string`). Command-line and environment text is converted to it (`number`: a number; `boolean`: `true`/`false`; `list`/`object`: JSON; `string`: as is)."
                },
                "default": {
                  "$ref": "#/$defs/literal",
                  "description": "The value when none is given: any YAML value without `${{ }}` (RP0210). Its type MUST be `type` (RP0102); a null default fits any type and makes the input optional."
                },
                "env": {
                  "description": "An environment variable the value may come from (`[A-Za-z_][A-Za-z0-9_]*`, RP0106 otherwise); it also makes `env.NAME` readable in expressions. A value on the command line wins over it; it wins over the default.",
                  "type": "string",
                  "pattern": "^[A-Za-z_][A-Za-z0-9_]*(?![\\s\\S])",
                  "patternErrorMessage": "An environment variable name contains letters, digits and `_`, and does not start with a digit."
                },
                "secret": {
                  "description": "Whether the value is replaced by `***` in every output (diagnostics, reports, logs).",
                  "type": "boolean",
                  "default": false
                },
                "required": {
                  "description": "`true`: a run must be given a value (`--input`, `--inputs-file`, or the variable of `env`, where unset or empty counts as no value), otherwise it stops with RP0502 before anything is sent; not together with `default` (RP0104). `false`: optional, null without a value. Without it, an input is required when it has neither `default` nor `env`.",
                  "type": "boolean"
                },
                "description": {
                  "$ref": "#/$defs/text",
                  "description": "Shown in help and reports."
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false,
              "allOf": [
                {
                  "if": {
                    "required": [
                      "required"
                    ],
                    "properties": {
                      "required": {
                        "const": true
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "default": false
                    }
                  }
                },
                {
                  "if": {
                    "required": [
                      "type",
                      "default"
                    ],
                    "properties": {
                      "type": {
                        "const": "string"
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "default": {
                        "type": [
                          "string",
                          "null"
                        ]
                      }
                    }
                  }
                },
                {
                  "if": {
                    "required": [
                      "type",
                      "default"
                    ],
                    "properties": {
                      "type": {
                        "const": "number"
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "default": {
                        "type": [
                          "number",
                          "null"
                        ]
                      }
                    }
                  }
                },
                {
                  "if": {
                    "required": [
                      "type",
                      "default"
                    ],
                    "properties": {
                      "type": {
                        "const": "boolean"
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "default": {
                        "type": [
                          "boolean",
                          "null"
                        ]
                      }
                    }
                  }
                },
                {
                  "if": {
                    "required": [
                      "type",
                      "default"
                    ],
                    "properties": {
                      "type": {
                        "const": "list"
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "default": {
                        "type": [
                          "array",
                          "null"
                        ]
                      }
                    }
                  }
                },
                {
                  "if": {
                    "required": [
                      "type",
                      "default"
                    ],
                    "properties": {
                      "type": {
                        "const": "object"
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "default": {
                        "type": [
                          "object",
                          "null"
                        ]
                      }
                    }
                  }
                },
                {
                  "if": {
                    "required": [
                      "type",
                      "default"
                    ],
                    "properties": {
                      "type": {
                        "const": "null"
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "default": {
                        "type": [
                          "null"
                        ]
                      }
                    }
                  }
                }
              ]
            },
            "defaults": {
              "description": "Settings applied to every request of the plan (request steps and the requests of for_each steps) unless the step overrides them. Expressions here may read `inputs` and `env` only (RP0210 for `steps`).",
              "type": [
                "object",
                "null"
              ],
              "properties": {
                "base_url": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "Relative request URLs are joined to it, with exactly one `/` between them. Required when a request URL is relative (RP0105)."
                },
                "headers": {
                  "$ref": "#/$defs/headers",
                  "description": "Added to every request; a request's own header of the same name (ignoring case) wins."
                },
                "query": {
                  "$ref": "#/$defs/parameters",
                  "description": "Added to every request's query, first; a request's own parameter of the same name wins."
                },
                "timeout": {
                  "$ref": "#/$defs/duration",
                  "description": "Per attempt of each request (a request step's own `timeout` wins)."
                },
                "retry": {
                  "$ref": "#/$defs/retry",
                  "description": "Retry policy of each request, merged field by field with a step's own `retry`."
                },
                "expect": {
                  "$ref": "#/$defs/expect",
                  "description": "What each response must look like (default `status: 2xx`), merged field by field with a step's own `expect`."
                },
                "auth": {
                  "$ref": "#/$defs/auth",
                  "description": "Credentials of every request that has neither its own `auth` nor its own `Authorization` header (either replaces it)."
                },
                "follow_redirects": {
                  "$ref": "#/$defs/followRedirects"
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false,
              "allOf": [
                {
                  "$ref": "#/$defs/authExcludesAuthorizationHeader"
                }
              ]
            },
            "outputs": {
              "description": "The plan's result: output name → any YAML value, in which strings may hold `${{ }}`, or `{ value, secret, description }`. Evaluated once, after the run, with the results that exist; they may read `steps`, `inputs`, `env` and `vars` (not `success()`/`failure()`/`always()`, not members of a for_each body). Outputs create no dependencies. A plan run as a sub-plan gives them to its step (`steps.X.outputs.NAME`).",
              "type": [
                "object",
                "null"
              ],
              "propertyNames": {
                "$ref": "#/$defs/nameKey"
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/output"
              }
            },
            "output": {
              "description": "An output: any value, or a mapping with a `value` key, which is the declaration `{ value, secret, description }` (to output an object with a `value` key, write it under `value:`).",
              "if": {
                "type": "object",
                "required": [
                  "value"
                ]
              },
              "then": {
                "$ref": "#/$defs/outputDeclaration"
              },
              "else": {
                "$ref": "#/$defs/value"
              }
            },
            "outputDeclaration": {
              "description": "An output declaration (RP0101 for another key).",
              "type": "object",
              "required": [
                "value"
              ],
              "properties": {
                "value": {
                  "$ref": "#/$defs/value",
                  "description": "The output's value."
                },
                "secret": {
                  "description": "`***` in the summary, the reports and every other output of the run, like a secret input; still given whole to a plan that runs this one as a sub-plan, and to `reqplan run --output json`.",
                  "type": "boolean",
                  "default": false
                },
                "description": {
                  "$ref": "#/$defs/text",
                  "description": "Free text."
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false
            },
            "vars": {
              "description": "Named values computed once, read as `vars.NAME`: var name → any YAML value whose strings may hold `${{ }}` over `inputs`, `env`, `steps` (outside for_each bodies) and other vars. A step that reads a var waits for the steps the var reads.",
              "type": [
                "object",
                "null"
              ],
              "propertyNames": {
                "$ref": "#/$defs/nameKey"
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/value"
              }
            },
            "subPlan": {
              "description": "Runs another plan file as one step: `{ file: PATH, inputs: { NAME: VALUE } }`. Its steps nest under the step (`login/form`); `steps.X.outputs` gives its outputs. Checked across the files by `reqplan validate`: the file exists inside the plan's folder, inputs are declared and of their type, required inputs are given.",
              "type": "object",
              "required": [
                "file"
              ],
              "properties": {
                "file": {
                  "description": "The plan file, relative to the file this step is written in; a literal path (no `${{ }}`, RP0210), not empty (RP0105).",
                  "type": "string",
                  "minLength": 1,
                  "not": {
                    "pattern": "\\$\\{\\{"
                  }
                },
                "inputs": {
                  "description": "Values of the sub-plan's inputs: input name → any YAML value, strings may hold `${{ }}` evaluated in this plan when the step starts.",
                  "type": [
                    "object",
                    "null"
                  ],
                  "propertyNames": {
                    "$ref": "#/$defs/nameKey"
                  },
                  "patternProperties": {
                    "^<<$": {
                      "$ref": "#/$defs/mergeKey"
                    }
                  },
                  "additionalProperties": {
                    "$ref": "#/$defs/value"
                  }
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false
            },
            "steps": {
              "description": "A non-empty mapping of step id → step. Step ids are unique across the whole plan, members included (RP0107).",
              "type": "object",
              "minProperties": 1,
              "propertyNames": {
                "$ref": "#/$defs/nameKey"
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/step"
              }
            },
            "step": {
              "description": "A step: exactly one of `request`, `group`, `sequence`, `for_each` (with a `request` or a `group` body) or `plan` (a sub-plan), plus the keys that kind allows.",
              "type": "object",
              "properties": {
                "request": {
                  "$ref": "#/$defs/request",
                  "description": "Sends one HTTP request (with its retries). On a for_each step: the body, sent once per item."
                },
                "group": {
                  "$ref": "#/$defs/steps",
                  "description": "Member steps that run concurrently; the group ends when all have ended. Needing a group means needing all its members. On a for_each step: the body, run as a group once per item. Empty is RP0115."
                },
                "sequence": {
                  "$ref": "#/$defs/steps",
                  "description": "Member steps that run one after another, in the order written: each depends on the one before it. Not allowed as a for_each body (RP0104: use a `group` with a `sequence` member). Empty is RP0115."
                },
                "for_each": {
                  "$ref": "#/$defs/forEachItems"
                },
                "plan": {
                  "$ref": "#/$defs/subPlan"
                },
                "as": {
                  "$ref": "#/$defs/itemName"
                },
                "needs": {
                  "$ref": "#/$defs/needs"
                },
                "if": {
                  "$ref": "#/$defs/condition"
                },
                "description": {
                  "$ref": "#/$defs/text",
                  "description": "Free text."
                },
                "timeout": {
                  "$ref": "#/$defs/duration",
                  "description": "On a `request` step: each attempt (overrides `defaults.timeout`). On a `group`, `sequence` or `for_each`: the whole step (its running members are cancelled and it fails)."
                },
                "retry": {
                  "$ref": "#/$defs/retry",
                  "description": "Retry policy (request steps and for_each over a request; RP0114 elsewhere). Fields set here win over `defaults.retry`, field by field."
                },
                "expect": {
                  "$ref": "#/$defs/expect",
                  "description": "What the response must look like (request steps and for_each over a request, where it applies to each item; RP0114 elsewhere). Fields set here replace those of `defaults.expect`."
                },
                "concurrency": {
                  "$ref": "#/$defs/concurrency",
                  "description": "Most requests of this step's members or items in flight at once, at any depth (group, sequence, for_each; RP0114 on a request step)."
                },
                "on_failure": {
                  "$ref": "#/$defs/onFailure",
                  "description": "What a failing member or item does to the others (group, sequence, for_each; RP0114 on a request step). Without it, the enclosing scope's policy applies."
                },
                "cookies": {
                  "description": "Whether the run's cookie jar applies to this step's requests (on a group, sequence or for_each, to every request inside): with `false` no stored cookie is sent and no `Set-Cookie` is stored. The innermost setting wins, then the plan's `cookies`.",
                  "type": "boolean"
                },
                "poll": {
                  "$ref": "#/$defs/poll"
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false,
              "if": {
                "required": [
                  "poll",
                  "request"
                ],
                "properties": {
                  "request": {
                    "required": [
                      "method"
                    ],
                    "properties": {
                      "method": {
                        "enum": [
                          "POST",
                          "PATCH"
                        ]
                      }
                    }
                  }
                }
              },
              "then": {
                "properties": {
                  "poll": {
                    "required": [
                      "unsafe"
                    ],
                    "properties": {
                      "unsafe": {
                        "const": true
                      }
                    }
                  }
                }
              },
              "oneOf": [
                {
                  "title": "request step",
                  "required": [
                    "request"
                  ],
                  "properties": {
                    "plan": false,
                    "group": false,
                    "sequence": false,
                    "for_each": false,
                    "as": false,
                    "concurrency": false,
                    "on_failure": false
                  }
                },
                {
                  "title": "group step",
                  "required": [
                    "group"
                  ],
                  "properties": {
                    "plan": false,
                    "request": false,
                    "sequence": false,
                    "for_each": false,
                    "as": false,
                    "retry": false,
                    "expect": false,
                    "poll": false
                  }
                },
                {
                  "title": "sequence step",
                  "required": [
                    "sequence"
                  ],
                  "properties": {
                    "plan": false,
                    "request": false,
                    "group": false,
                    "for_each": false,
                    "as": false,
                    "retry": false,
                    "expect": false,
                    "poll": false
                  }
                },
                {
                  "title": "for_each over a request",
                  "required": [
                    "for_each",
                    "request"
                  ],
                  "properties": {
                    "plan": false,
                    "group": false,
                    "sequence": false
                  }
                },
                {
                  "title": "for_each over a group",
                  "required": [
                    "for_each",
                    "group"
                  ],
                  "properties": {
                    "plan": false,
                    "request": false,
                    "sequence": false,
                    "retry": false,
                    "expect": false,
                    "poll": false
                  }
                },
                {
                  "title": "plan step (a sub-plan)",
                  "required": [
                    "plan"
                  ],
                  "properties": {
                    "request": false,
                    "group": false,
                    "sequence": false,
                    "for_each": false,
                    "as": false,
                    "retry": false,
                    "expect": false,
                    "on_failure": false
                  }
                }
              ]
            },
            "needs": {
              "description": "Steps that must end (in any state) before this one starts: a step id or a list of step ids (RP0102 otherwise). Each must name an existing step (RP0301) addressable from here (RP0211).",
              "anyOf": [
                {
                  "$ref": "#/$defs/name"
                },
                {
                  "type": "array",
                  "items": {
                    "$ref": "#/$defs/name"
                  }
                }
              ]
            },
            "condition": {
              "description": "Whether the step runs, decided once just before it would start (for a for_each, once before the loop). `true`/`false`, a bare expression (`steps.a.status == 200`), or exactly one `${{ }}` with only spaces around it. Without `if:` the step behaves as `if: ${{ success() }}`; an explicit `if:` replaces it (write `success() && …` to keep it). `success()`, `failure()` and `always()` are allowed only here.",
              "type": [
                "boolean",
                "string"
              ],
              "pattern": "^(?![\\s\\S]*\\$\\{\\{)|^[ \\t\\r\\n]*\\$\\{\\{(?:'(?:[^']|'')*'|\"(?:[^\"\\\\]|\\\\[\\s\\S])*\"|[^}'\"]|\\}(?!\\}))*\\}\\}[ \\t\\r\\n]*(?![\\s\\S])",
              "patternErrorMessage": "A condition is a bare expression or exactly one `${{ … }}`; text around `${{ }}` is not allowed (RP0210).",
              "examples": [
                "${{ always() }}",
                "${{ success() && inputs.mode == 'full' }}",
                "steps.config.body.maintenance == true"
              ]
            },
            "forEachItems": {
              "description": "Runs the body (`request` or `group`) once per item: a YAML list (whose elements may hold `${{ }}`) or exactly one `${{ }}` giving a list (RP0102 otherwise). Evaluated once, when the step starts; it cannot read the item. Results keep the input order.",
              "anyOf": [
                {
                  "type": "array",
                  "items": {
                    "$ref": "#/$defs/value"
                  }
                },
                {
                  "$ref": "#/$defs/singleExpression"
                }
              ]
            },
            "itemName": {
              "description": "The item's name inside the body (default `item`): a name, not `inputs`, `steps`, `env`, `vars` or `response` (RP0106). Only on for_each steps (RP0114).",
              "type": "string",
              "pattern": "^[A-Za-z_][A-Za-z0-9_-]*(?![\\s\\S])",
              "patternErrorMessage": "A name starts with a letter or `_` and contains letters, digits, `_` and `-`.",
              "not": {
                "enum": [
                  "inputs",
                  "steps",
                  "env",
                  "vars",
                  "response"
                ]
              },
              "default": "item"
            },
            "request": {
              "description": "One HTTP request: `url` (required), `method`, `query`, `headers`, at most one body (`json`, `form`, `multipart`, `body`, `body_file`), `auth` and `follow_redirects`. Credentials in the URL (`http://user:password@host/`) are sent as basic credentials unless `auth` or an `Authorization` header is in force.",
              "type": "object",
              "anyOf": [
                {
                  "required": [
                    "url"
                  ]
                },
                {
                  "$ref": "#/$defs/operationRequest"
                }
              ],
              "properties": {
                "operation": {
                  "$ref": "#/$defs/operation"
                },
                "path": {
                  "$ref": "#/$defs/pathParameters"
                },
                "method": {
                  "$ref": "#/$defs/method"
                },
                "url": {
                  "description": "Absolute (`http://…`, `https://…`) or relative to `defaults.base_url` (which must then be set, RP0105). A text template. A URL written without `${{ }}` MUST NOT be empty, and when it starts with a scheme and `://` the scheme MUST be http or https (RP0105); `/login?next=https://x/` is relative.",
                  "type": [
                    "string",
                    "number",
                    "boolean"
                  ],
                  "minLength": 1,
                  "pattern": "^(?:[\\s\\S]*\\$\\{\\{[\\s\\S]*|(?![A-Za-z][A-Za-z0-9+.-]*://)[\\s\\S]+|[hH][tT][tT][pP][sS]?://[\\s\\S]*)(?![\\s\\S])",
                  "patternErrorMessage": "A URL is relative or starts with `http://` or `https://`."
                },
                "query": {
                  "$ref": "#/$defs/parameters",
                  "description": "Query parameters appended to the URL, percent-encoded. A list repeats the parameter; a value that is one `${{ }}` giving null leaves the parameter out."
                },
                "headers": {
                  "$ref": "#/$defs/headers",
                  "description": "Request headers (a header of `defaults.headers` with the same name is replaced)."
                },
                "json": {
                  "$ref": "#/$defs/value",
                  "description": "Body: any YAML value, sent as JSON (`application/json`). A string that is exactly one `${{ }}` keeps its type."
                },
                "form": {
                  "$ref": "#/$defs/parameters",
                  "description": "Body: name → value or list, sent as `application/x-www-form-urlencoded`."
                },
                "multipart": {
                  "$ref": "#/$defs/multipart"
                },
                "body": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "Body: raw text, sent as written (UTF-8, `text/plain; charset=utf-8`)."
                },
                "body_file": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "Body: the bytes of a file, path relative to the plan file (`application/octet-stream`)."
                },
                "auth": {
                  "$ref": "#/$defs/auth",
                  "description": "Credentials sent as the `Authorization` header; replaces `defaults.auth` and a default `Authorization` header."
                },
                "follow_redirects": {
                  "$ref": "#/$defs/followRedirects"
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false,
              "allOf": [
                {
                  "$ref": "#/$defs/authExcludesAuthorizationHeader"
                },
                {
                  "description": "A TRACE request has no body (RFC 9110; RP0104).",
                  "if": {
                    "required": [
                      "method"
                    ],
                    "properties": {
                      "method": {
                        "const": "TRACE"
                      }
                    }
                  },
                  "then": {
                    "properties": {
                      "json": false,
                      "form": false,
                      "multipart": false,
                      "body": false,
                      "body_file": false
                    }
                  }
                }
              ],
              "dependentSchemas": {
                "json": {
                  "properties": {
                    "form": false,
                    "multipart": false,
                    "body": false,
                    "body_file": false
                  }
                },
                "form": {
                  "properties": {
                    "json": false,
                    "multipart": false,
                    "body": false,
                    "body_file": false
                  }
                },
                "multipart": {
                  "properties": {
                    "json": false,
                    "form": false,
                    "body": false,
                    "body_file": false
                  }
                },
                "body": {
                  "properties": {
                    "json": false,
                    "form": false,
                    "multipart": false,
                    "body_file": false
                  }
                },
                "body_file": {
                  "properties": {
                    "json": false,
                    "form": false,
                    "multipart": false,
                    "body": false
                  }
                }
              }
            },
            "auth": {
              "description": "Credentials sent as the `Authorization` header: `{ basic: { username, password } }` (`Basic` and the base64 of `username:password`) or `{ bearer: TOKEN }` (`Bearer TOKEN`); expressions allowed. They are hidden in every output, the base64 form included. Exactly one of `basic` and `bearer` (RP0104 for both, RP0103 for neither).",
              "type": "object",
              "properties": {
                "basic": {
                  "$ref": "#/$defs/basicAuth"
                },
                "bearer": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "The token, sent as `Authorization: Bearer TOKEN`."
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false,
              "oneOf": [
                {
                  "title": "basic credentials",
                  "required": [
                    "basic"
                  ],
                  "properties": {
                    "bearer": false
                  }
                },
                {
                  "title": "a bearer token",
                  "required": [
                    "bearer"
                  ],
                  "properties": {
                    "basic": false
                  }
                }
              ]
            },
            "basicAuth": {
              "description": "Basic credentials (RFC 7617): `username` and `password`, both required (RP0103); an empty password is `\"\"`.",
              "type": "object",
              "required": [
                "username",
                "password"
              ],
              "properties": {
                "username": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "The user name."
                },
                "password": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "The password."
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false
            },
            "authExcludesAuthorizationHeader": {
              "description": "`auth` writes the `Authorization` header, so the same request (or `defaults`) cannot also set one (RP0104).",
              "if": {
                "required": [
                  "auth"
                ]
              },
              "then": {
                "properties": {
                  "headers": {
                    "propertyNames": {
                      "not": {
                        "pattern": "^[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn](?![\\s\\S])"
                      }
                    }
                  }
                }
              }
            },
            "followRedirects": {
              "description": "Whether 3xx redirects are followed (default `true`: up to 10, by the method rules of browsers and AsyncHTTPClient). With `false` the 3xx response itself is the step's response, so `expect` can check its status and `Location`. A request's own setting wins over `defaults`.",
              "type": "boolean"
            },
            "headers": {
              "description": "Header name (an HTTP token, RFC 9110) → text template. Names MUST NOT repeat ignoring case (RP0003); values are text (numbers and booleans as written; null is RP0102).",
              "type": [
                "object",
                "null"
              ],
              "propertyNames": {
                "$ref": "#/$defs/headerNameKey"
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/textTemplate"
              }
            },
            "parameters": {
              "description": "Parameter name → a scalar, a template, or a list of scalars/templates (a list repeats the parameter). A mapping, or a list holding a list or mapping, is RP0102.",
              "type": [
                "object",
                "null"
              ],
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/parameterValue"
              }
            },
            "parameterValue": {
              "description": "A scalar (strings may hold `${{ }}`), or a list of scalars that repeats the parameter.",
              "type": [
                "string",
                "number",
                "boolean",
                "null",
                "array"
              ],
              "items": {
                "type": [
                  "string",
                  "number",
                  "boolean",
                  "null"
                ]
              }
            },
            "multipart": {
              "description": "Body: part name → part, sent as `multipart/form-data` with a generated boundary.",
              "type": [
                "object",
                "null"
              ],
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": {
                "$ref": "#/$defs/multipartPart"
              }
            },
            "multipartPart": {
              "description": "A part: text (a text field), `{ value: text, content_type }` (a text field with a content type) or `{ file: path, content_type, filename }` (a file, path relative to the plan). A list is not a part (RP0102).",
              "anyOf": [
                {
                  "$ref": "#/$defs/textTemplate"
                },
                {
                  "$ref": "#/$defs/multipartPartMapping"
                }
              ]
            },
            "multipartPartMapping": {
              "description": "A part with exactly one of `file` and `value` (both: RP0104; neither: RP0103).",
              "type": "object",
              "properties": {
                "value": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "The field's text."
                },
                "file": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "Path of the file to send, relative to the plan file."
                },
                "content_type": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "The part's Content-Type (default: none for text fields, `application/octet-stream` for files)."
                },
                "filename": {
                  "$ref": "#/$defs/textTemplate",
                  "description": "The file name sent (default: the last component of `file`). File parts only (RP0114 on a `value` part)."
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false,
              "oneOf": [
                {
                  "title": "file part",
                  "required": [
                    "file"
                  ],
                  "properties": {
                    "value": false
                  }
                },
                {
                  "title": "text part",
                  "required": [
                    "value"
                  ],
                  "properties": {
                    "file": false,
                    "filename": false
                  }
                }
              ]
            },
            "retry": {
              "description": "Retry policy: `retry: 3` (shorthand for `{ attempts: 3 }`) or a mapping. `POST` and `PATCH` are retried only with `unsafe: true`. Waits use exponential backoff with full jitter; a `Retry-After` header replaces the wait (up to 60 s).",
              "anyOf": [
                {
                  "description": "Shorthand: the total number of attempts (1–100), the first included.",
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 100
                },
                {
                  "$ref": "#/$defs/retryPolicy"
                }
              ]
            },
            "retryPolicy": {
              "description": "A retry policy; unset fields come from `defaults.retry`.",
              "type": [
                "object",
                "null"
              ],
              "properties": {
                "attempts": {
                  "description": "Total tries, the first included (1–100; default 1, no retry).",
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 100,
                  "default": 1
                },
                "backoff": {
                  "$ref": "#/$defs/duration",
                  "description": "Base of the wait before the second try; the ceiling doubles before each later try (default `100ms`).",
                  "default": "100ms"
                },
                "max_backoff": {
                  "$ref": "#/$defs/duration",
                  "description": "The longest wait (default `10s`). When both are written in the same `retry`, shorter than `backoff` is RP0105.",
                  "default": "10s"
                },
                "on": {
                  "description": "Which failures are retried: a condition or a list of conditions (default: all four).",
                  "anyOf": [
                    {
                      "$ref": "#/$defs/retryCondition"
                    },
                    {
                      "type": "array",
                      "items": {
                        "$ref": "#/$defs/retryCondition"
                      }
                    }
                  ]
                },
                "unsafe": {
                  "description": "Allow retrying methods that are not idempotent (`POST`, `PATCH`).",
                  "type": "boolean",
                  "default": false
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false
            },
            "retryCondition": {
              "description": "`5xx`: a status 500–599 that does not satisfy `expect.status`; `429`: status 429 that does not satisfy it; `timeout`: the attempt exceeded its timeout; `connect`: the connection failed (refused, reset, DNS; not TLS). RP0105 otherwise.",
              "enum": [
                "5xx",
                "429",
                429,
                "timeout",
                "connect"
              ]
            },
            "poll": {
              "description": "Polling (request steps and for_each over a request; RP0114 elsewhere): send the request again and again until `until` holds on its response. Each poll is one request with its `retry`; between polls the step waits `every` and holds no concurrency slot. A response `until` does not accept and `expect.status` does not accept fails the step; when the bound (`timeout`, `attempts`) runs out the step fails with reason `timeout`. `POST` and `PATCH` poll only with `unsafe: true` (RP0702).",
              "type": "object",
              "required": [
                "until"
              ],
              "anyOf": [
                {
                  "required": [
                    "timeout"
                  ]
                },
                {
                  "required": [
                    "attempts"
                  ]
                }
              ],
              "properties": {
                "until": {
                  "$ref": "#/$defs/condition",
                  "description": "When to stop: a condition on the latest response, read as `response` (`status`, `headers`, `body`, `cookies`, `duration`; RP0701 anywhere else). Required (RP0103). When it holds, polling ends with that response, which must meet `expect` apart from its status."
                },
                "every": {
                  "$ref": "#/$defs/pollInterval"
                },
                "timeout": {
                  "$ref": "#/$defs/duration",
                  "description": "The longest time polling may take, from the start of the first poll: no poll starts after it, and one in flight gets only the time left. `timeout`, `attempts` or both are required (RP0103)."
                },
                "attempts": {
                  "description": "The most polls (1–10 000). `timeout`, `attempts` or both are required (RP0103).",
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 10000
                },
                "unsafe": {
                  "description": "Allow polling methods that are not idempotent (`POST`, `PATCH`; RP0702 without it).",
                  "type": "boolean",
                  "default": false
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false
            },
            "pollInterval": {
              "description": "The wait between polls (default `1s`): a duration, or a backoff `{ initial, factor, max }` whose first wait is `initial` and each later one `factor` times the one before, at most `max`. A response's `Retry-After` replaces the wait (up to 60 s).",
              "anyOf": [
                {
                  "$ref": "#/$defs/duration"
                },
                {
                  "type": "object",
                  "properties": {
                    "initial": {
                      "$ref": "#/$defs/duration",
                      "description": "The first wait (default `1s`).",
                      "default": "1s"
                    },
                    "factor": {
                      "description": "Each wait is the one before times this (1–10, default 2).",
                      "type": "number",
                      "minimum": 1,
                      "maximum": 10,
                      "default": 2
                    },
                    "max": {
                      "$ref": "#/$defs/duration",
                      "description": "The longest wait (default `30s`); shorter than `initial` is RP0105.",
                      "default": "30s"
                    }
                  },
                  "patternProperties": {
                    "^<<$": {
                      "$ref": "#/$defs/mergeKey"
                    }
                  },
                  "additionalProperties": false
                }
              ]
            },
            "expect": {
              "description": "What the response must look like; every check must hold, otherwise the request fails. Default `status: 2xx`.",
              "type": [
                "object",
                "null"
              ],
              "properties": {
                "status": {
                  "description": "A status or a list of statuses; the response status MUST match one of them (default `2xx`; an empty list is RP0109).",
                  "anyOf": [
                    {
                      "$ref": "#/$defs/status"
                    },
                    {
                      "type": "array",
                      "minItems": 1,
                      "items": {
                        "$ref": "#/$defs/status"
                      }
                    }
                  ]
                },
                "headers": {
                  "description": "Response header name (compared ignoring case) → matcher.",
                  "type": [
                    "object",
                    "null"
                  ],
                  "propertyNames": {
                    "$ref": "#/$defs/headerNameKey"
                  },
                  "patternProperties": {
                    "^<<$": {
                      "$ref": "#/$defs/mergeKey"
                    }
                  },
                  "additionalProperties": {
                    "$ref": "#/$defs/matcher"
                  }
                },
                "body": {
                  "description": "Body path → matcher. Paths: `$` (the whole body), `token`, `data.items[0].id`, `items[-1]`, `['content-type']`, `items[*].id`. A malformed path is RP0201. A step's `body` replaces the default `body` mapping entirely.",
                  "type": [
                    "object",
                    "null"
                  ],
                  "propertyNames": {
                    "$ref": "#/$defs/bodyPath"
                  },
                  "patternProperties": {
                    "^<<$": {
                      "$ref": "#/$defs/mergeKey"
                    }
                  },
                  "additionalProperties": {
                    "$ref": "#/$defs/matcher"
                  }
                },
                "max_duration": {
                  "$ref": "#/$defs/duration",
                  "description": "The response MUST arrive within this, per attempt (a failed expectation, not retried)."
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false
            },
            "bodyPath": {
              "description": "A path into the response body: `$` (or `$.`, or empty) for the whole body, else names joined by `.` and selectors `[0]`, `[-1]`, `['key']`, `[\"key\"]`, `[*]`, optionally after `$` or `$.`.",
              "type": "string",
              "pattern": "^(?:<<|(?:\\$\\.?)?(?:[ \\t\\r\\n]*(?:[A-Za-z_][A-Za-z0-9_-]*|\\[[ \\t\\r\\n]*(?:-?[0-9]+|'(?:[^']|'')*'|\"(?:[^\"\\\\]|\\\\[nt\"\\\\])*\"|\\*)[ \\t\\r\\n]*\\])[ \\t\\r\\n]*(?:(?:\\.[ \\t\\r\\n]*[A-Za-z_][A-Za-z0-9_-]*|\\[[ \\t\\r\\n]*(?:-?[0-9]+|'(?:[^']|'')*'|\"(?:[^\"\\\\]|\\\\[nt\"\\\\])*\"|\\*)[ \\t\\r\\n]*\\])[ \\t\\r\\n]*)*))(?![\\s\\S])|^(?:\\$\\.?)?(?![\\s\\S])",
              "patternErrorMessage": "Body paths look like `token`, `data.items[0].id`, `['x y']` or `$` for the whole body."
            },
            "matcher": {
              "description": "A plain value (not a mapping; `${{ }}` allowed), meaning `equals`, or a mapping of checks that MUST all hold: `equals`, `exists`, `matches`, `type`, `contains`, `length`. To compare with a mapping write `equals: { … }`.",
              "anyOf": [
                {
                  "type": [
                    "string",
                    "number",
                    "boolean",
                    "null",
                    "array"
                  ],
                  "allOf": [
                    {
                      "$ref": "#/$defs/value"
                    }
                  ]
                },
                {
                  "$ref": "#/$defs/matcherChecks"
                }
              ]
            },
            "matcherChecks": {
              "description": "Checks that MUST all hold (an empty mapping is RP0103, an unknown check RP0101). Except for `exists: false`, every check fails on an absent value.",
              "type": "object",
              "minProperties": 1,
              "properties": {
                "equals": {
                  "$ref": "#/$defs/value",
                  "description": "Holds when the value equals it (`1` equals `1.0`; objects ignore key order; `\"5\"` is not `5`). `${{ }}` allowed."
                },
                "exists": {
                  "description": "`true`: the value is present (a present null exists); `false`: it is absent.",
                  "type": "boolean"
                },
                "matches": {
                  "description": "A regular expression (ICU / NSRegularExpression syntax; RP0113 if it does not compile). Holds when the value is a string, or a number or boolean taken as text, containing a match (unanchored: use `^…$`).",
                  "type": "string"
                },
                "type": {
                  "$ref": "#/$defs/valueType",
                  "description": "Holds when the value has this type."
                },
                "contains": {
                  "$ref": "#/$defs/value",
                  "description": "Holds when the value is a string containing it as a substring, or a list with an element equal to it. `${{ }}` allowed."
                },
                "length": {
                  "description": "Holds when the value is a string of that many characters, a list of that many elements or an object of that many keys.",
                  "type": "integer",
                  "minimum": 0
                }
              },
              "patternProperties": {
                "^<<$": {
                  "$ref": "#/$defs/mergeKey"
                }
              },
              "additionalProperties": false
            }
          }
        }

        """##
}
