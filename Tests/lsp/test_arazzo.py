"""An Arazzo workflow document in the editor: the OpenAPI Initiative's own example (`pet-coupons`, with its
OpenAPI description beside it), checked as `reqplan validate` checks it, through a real LSP client library."""
import shutil
from pathlib import Path

from lsprotocol import types

from test_lsp import diagnostics_until

EXAMPLES = Path(__file__).resolve().parent.parent / "Fixtures" / "arazzo" / "examples"


async def test_an_arazzo_documents_mistakes_against_its_description_are_published_where_they_are(client, tmp_path):
    for name in ("pet-coupons.arazzo.yaml", "pet-coupons.openapi.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    document = tmp_path / "pet-coupons.arazzo.yaml"
    text = document.read_text()
    lines = text.splitlines()
    uri = document.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
    found = await diagnostics_until(client, uri, lambda d: len(d) > 0, timeout=30)
    by_code = {}
    for diagnostic in found:
        by_code.setdefault(diagnostic.code, []).append(diagnostic)
    # The example names a path parameter `pet_id` that `getPetCoupons` calls `petId`: RP0804, on the name,
    # with the quick fix's suggestion.
    wrong = next(d for d in by_code["RP0804"] if "pet_id" in d.message)
    line = wrong.range.start.line
    column = lines[line].index("pet_id")
    assert wrong.range == types.Range(
        start=types.Position(line=line, character=column), end=types.Position(line=line, character=column + 6))
    assert "did you mean `petId`?" in wrong.message
    # An input the workflow never reads is faded, not underlined.
    unused = by_code["RP0901"][0]
    assert list(unused.tags) == [types.DiagnosticTag.Unnecessary]
    assert lines[unused.range.start.line].strip().startswith("store_id")

    # The fix typed in: that diagnostic goes, and the check goes on from there (the unused inputs stay).
    at = types.Position(line=line, character=column)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=at, end=types.Position(line=line, character=column + 6)), text="petId")]))
    after = await diagnostics_until(
        client, uri, lambda d: not any(x.code == "RP0804" and x.range.start.line == line for x in d), timeout=30)
    assert [d.range for d in after if d.code == "RP0901"] == [d.range for d in by_code["RP0901"]], after
