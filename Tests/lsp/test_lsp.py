"""reqplan's language server through a real LSP client library (pytest-lsp, on pygls and lsprotocol)."""
import asyncio
import pathlib
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pytest_lsp import LanguageClient

# `fetch` needs `logn` (misspelt), after non-ASCII text on the same line: `𝄞` is one character, one
# Unicode scalar, four UTF-8 bytes and two UTF-16 code units; LSP positions count UTF-16 code units.
PLAN = """reqplan: 1
defaults: { base_url: "http://127.0.0.1:8080" }
steps:
  login: { request: { url: /login } }
  fetch: { description: "Café ☕ 𝄞", needs: [logn], request: { url: /b } }
"""
LINE = PLAN.splitlines()[4]


def within(awaitable, timeout: float = 10.0):
    """`awaitable`, failing the test after `timeout` seconds instead of waiting for a stuck server forever."""
    return asyncio.wait_for(awaitable, timeout)


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def diagnostics_until(client: LanguageClient, uri: str, accept, timeout: float = 10.0):
    """The diagnostics published for `uri` once `accept` takes them."""
    async def wait():
        while True:
            found = client.diagnostics.get(uri)
            if found is not None and accept(found):
                return found
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return await within(wait(), timeout)


async def test_capabilities_are_only_what_is_implemented(client: LanguageClient):
    # The fixture initialized; ask again to read the result: an error, the session is initialized already.
    with pytest.raises(Exception) as raised:
        await within(client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities())))
    assert "initialized already" in str(raised.value)


async def test_a_misspelt_need_is_published_at_its_utf16_range_and_cleared_when_fixed(client, tmp_path):
    uri = (tmp_path / "plan.yaml").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=PLAN)))
    found = await diagnostics_until(client, uri, lambda d: len(d) > 0)
    assert len(found) == 1, found
    diagnostic = found[0]
    assert diagnostic.code == "RP0301"
    assert diagnostic.source == "reqplan"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    start = utf16(LINE[: LINE.index("logn")])
    assert start == LINE.index("logn") + 1  # the two counts differ by `𝄞`'s second unit
    assert diagnostic.range == types.Range(
        start=types.Position(line=4, character=start), end=types.Position(line=4, character=start + 4))
    assert "`logn`" in diagnostic.message and "did you mean `login`?" in diagnostic.message

    # Type the missing `i` as an incremental change, at its UTF-16 position.
    at = types.Position(line=4, character=start + 3)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="i")]))
    assert await diagnostics_until(client, uri, lambda d: len(d) == 0) is not None

    # Closing publishes an empty list; a whole-text change of a reopened document is checked too.
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="yaml", version=3, text=PLAN.replace("logn", "login"))))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=4),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=PLAN.replace("logn", "lgin"))]))
    found = await diagnostics_until(client, uri, lambda d: len(d) > 0)
    assert "`lgin`" in found[0].message
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await diagnostics_until(client, uri, lambda d: len(d) == 0) is not None


async def test_an_unknown_method_and_a_malformed_frame_get_errors_and_the_server_goes_on(client, tmp_path):
    with pytest.raises(JsonRpcMethodNotFound):
        await within(client.protocol.send_request_async("reqplan/doesNotExist", {}))
    # Bytes no client library would send, straight to the server's standard input: a header without a
    # length, then a frame whose content is not JSON. Each gets a parse error (id null); the server goes on.
    client._server.stdin.write(b"Content-Type: text/plain\r\n\r\n")
    client._server.stdin.write(b"Content-Length: 9\r\n\r\n{\"jsonrpc")
    # A header without a length before its content, and a length counted in characters (`café`): each loses its
    # own message only, the server finds the next header (issue 37).
    client._server.stdin.write(b'Content-Type: application/json\r\n\r\n{"jsonrpc":"2.0","id":99,"method":"shutdown"}')
    counted = '{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"café"}}'
    client._server.stdin.write(f"Content-Length: {len(counted)}\r\n\r\n{counted}".encode())
    await client._server.stdin.drain()
    uri = (tmp_path / "after.yaml").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=PLAN)))
    found = await diagnostics_until(client, uri, lambda d: len(d) > 0)
    assert found[0].code == "RP0301"


def open_document(client: LanguageClient, uri: str, text: str, version: int = 1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=version, text=text)))


async def complete(client: LanguageClient, uri: str, line: int, character: int) -> list[types.CompletionItem]:
    result = await within(client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character))))
    return list(result.items if isinstance(result, types.CompletionList) else result or [])


HALF_WRITTEN = """reqplan: 1
defaults: { base_url: "http://127.0.0.1:8080" }
steps:
  login: { request: { url: /login } }
  sweep: { group: { a: { request: { url: /a } } } }
  fetch:
    description: "Café ☕ 𝄞"
    needs: [lo
    request:
      url: /b/${{ steps.login.
      \tmet
"""

GOOD = HALF_WRITTEN.replace("[lo\n", "[login]\n").replace("login.\n", "login.status }}\n").replace("      \tmet\n", "")


async def test_completion_offers_step_ids_result_fields_and_keys_in_a_half_written_plan(client, tmp_path):
    uri = (tmp_path / "half.yaml").as_uri()
    # Opened whole (and checked), then broken as typing breaks it: the steps of its last good reading are
    # offered, members of the group written in flow style included.
    open_document(client, uri, GOOD)
    await diagnostics_until(client, uri, lambda d: True)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=HALF_WRITTEN)]))
    lines = HALF_WRITTEN.splitlines()

    # `needs: [|lo`: the plan's step ids, members of groups included.
    items = await complete(client, uri, 7, utf16(lines[7]) - 2)
    labels = {item.label for item in items}
    assert {"login", "sweep", "a", "fetch"} <= labels, labels
    # `needs: [lo|`: those that hold what is typed (`l`, then `o`), replacing `lo`.
    items = await complete(client, uri, 7, utf16(lines[7]))
    assert {item.label for item in items} == {"login"}, items
    login = items[0]
    assert login.text_edit.range.start == types.Position(line=7, character=utf16(lines[7]) - 2)

    # `${{ steps.login.|` (never closed): the fields of a request's result, not a group's.
    items = await complete(client, uri, 9, utf16(lines[9]))
    labels = {item.label for item in items}
    assert {"status", "headers", "body", "duration"} <= labels and "results" not in labels, labels

    # `${{ steps.|`: step ids.
    line9 = lines[9][: lines[9].index("login")]
    items = await complete(client, uri, 9, utf16(line9))
    assert "login" in {item.label for item in items}

    # A key under `request:`, on the line after the one with a tab: `url` is written already.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=11, character=0), end=types.Position(line=11, character=0)),
                text="      me")]))
    items = await complete(client, uri, 11, 8)
    keys = {item.label: item for item in items}
    assert "method" in keys and "headers" in keys and "url" not in keys, sorted(keys)
    assert keys["method"].text_edit.new_text == "method: "
    assert keys["method"].documentation is not None

    # The server still publishes diagnostics for the half-written plan, and answers.
    found = await diagnostics_until(client, uri, lambda d: len(d) > 0)
    assert all(d.source == "reqplan" for d in found)


async def test_definition_of_a_step_id_and_the_steps_as_symbols(client, tmp_path):
    uri = (tmp_path / "nav.yaml").as_uri()
    open_document(client, uri, GOOD)
    lines = GOOD.splitlines()
    # `login` in `${{ steps.login.status }}`, the cursor inside it.
    at = types.Position(line=9, character=utf16(lines[9][: lines[9].index("login")]) + 2)
    found = await within(client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)))
    location = found[0] if isinstance(found, list) else found
    assert location.uri == uri
    assert location.range == types.Range(
        start=types.Position(line=3, character=2), end=types.Position(line=3, character=7))

    symbols = await within(client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))))
    assert [symbol.name for symbol in symbols] == ["login", "sweep", "fetch"]
    assert [child.name for child in symbols[1].children] == ["a"]


async def test_the_quick_fix_of_a_misspelt_need_replaces_it_with_the_suggestion(client, tmp_path):
    uri = (tmp_path / "fix.yaml").as_uri()
    open_document(client, uri, PLAN)
    diagnostic = (await diagnostics_until(client, uri, lambda d: len(d) > 0))[0]
    actions = await within(client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]))))
    assert [action.title for action in actions] == ["Replace `logn` with `login`"]
    assert actions[0].kind == types.CodeActionKind.QuickFix
    (edit,) = actions[0].edit.changes[uri]
    assert edit.range == diagnostic.range and edit.new_text == "login"
    # Applied as an editor applies it: the diagnostics clear.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)]))
    await diagnostics_until(client, uri, lambda d: len(d) == 0)


async def test_hover_shows_a_keys_description_and_a_steps_kind(client, tmp_path):
    uri = (tmp_path / "hover.yaml").as_uri()
    open_document(client, uri, GOOD)
    lines = GOOD.splitlines()

    async def hover(line: int, needle: str):
        at = types.Position(line=line, character=utf16(lines[line][: lines[line].index(needle)]) + 1)
        return await within(client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)))

    url = await hover(9, "url")
    assert url.contents.kind == types.MarkupKind.Markdown and url.contents.value.startswith("**`url`**")
    step = await hover(9, "login")
    assert step.contents.value == "**`login`**: request step"
    assert await hover(6, "Café") is None


FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "Fixtures"

# `Sid` is a required path parameter; `steps.first.body.sid` is optional in the response: RP0853.
FLOW = """reqplan: 1
openapi:
  sms: { file: templates-30.yaml, base_url: "http://127.0.0.1:8080" }
steps:
  first:
    request: { url: "http://127.0.0.1:8080/Accounts/AC1/Messages/SM1.json" }
  shown:
    description: "Café ☕ 𝄞"
    needs: [first]
    request:
      operation: sms.fetchMessage
      path: { AccountSid: AC1, Sid: "${{ steps.first.body.sid }}" }
"""


async def test_references_of_a_step_and_the_default_fix_of_a_possibly_absent_value(client, tmp_path):
    shutil.copy(FIXTURES / "openapi" / "templates-30.yaml", tmp_path / "templates-30.yaml")
    uri = (tmp_path / "flow.yaml").as_uri()
    open_document(client, uri, FLOW)
    lines = FLOW.splitlines()
    found = await diagnostics_until(client, uri, lambda d: any(x.code == "RP0853" for x in d))

    # From `first` in `needs:`: its definition, the need, and `steps.first` in the path parameter.
    at = types.Position(line=8, character=utf16(lines[8][: lines[8].index("first")]) + 1)
    locations = await within(client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=at,
            context=types.ReferenceContext(include_declaration=True))))
    assert [(location.uri, location.range.start.line) for location in locations] == [(uri, 4), (uri, 8), (uri, 11)]
    assert locations[2].range.start.character == utf16(lines[11][: lines[11].index("first.body")])
    without = await within(client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=at,
            context=types.ReferenceContext(include_declaration=False))))
    assert [location.range.start.line for location in without] == [8, 11]

    # RP0853's code action wraps the value in `default(…)`; applied, the warning goes.
    warning = next(x for x in found if x.code == "RP0853")
    actions = await within(client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=warning.range,
            context=types.CodeActionContext(diagnostics=[warning]))))
    assert [action.title for action in actions] == ["Wrap in `default(…)` with the fallback ''"]
    (edit,) = actions[0].edit.changes[uri]
    assert edit.new_text == "\"${{ default(steps.first.body.sid, '') }}\""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)]))
    await diagnostics_until(client, uri, lambda d: not any(x.code == "RP0853" for x in d))


# The OpenAPI Initiative's Petstore (Tests/Fixtures/openapi/README.md), bound by a plan whose second
# request's operation is half-written.
PETSTORE = Path(__file__).resolve().parent.parent / "Fixtures" / "openapi" / "petstore.yaml"
BOUND = """reqplan: 1
openapi:
  petstore: petstore.yaml
defaults: { base_url: "http://127.0.0.1:1" }
steps:
  show: { request: { operation: petstore.showPetById, path: { petId: "1" } } }
  list:
    request:
      operation: petstore.
outputs:
  name: "${{ steps.show.body.name }}"
"""


async def test_operations_and_response_types_come_from_the_bound_description(client, tmp_path):
    shutil.copy(PETSTORE, tmp_path / "petstore.yaml")
    uri = (tmp_path / "bound.yaml").as_uri()
    open_document(client, uri, BOUND)
    # Checked (the half-written operation is unknown): what the check read of the description is known.
    await diagnostics_until(client, uri, lambda d: len(d) > 0)
    lines = BOUND.splitlines()
    items = {item.label: item for item in await complete(client, uri, 8, len(lines[8]))}
    assert set(items) == {"listPets", "createPets", "showPetById"}, items
    assert items["showPetById"].detail == "GET /pets/{petId}"
    assert items["showPetById"].documentation.value == "Info for a specific pet"

    at = types.Position(line=10, character=lines[10].index("name }}") + 2)
    hover = await within(client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)))
    assert hover.contents.value.startswith("**`steps.show.body.name`**: `string`"), hover.contents.value
