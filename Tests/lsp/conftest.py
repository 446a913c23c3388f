"""pytest-lsp starts `reqplan lsp` (the binary named by REQPLAN_BINARY) for each test and talks to it over stdio.

Run by ReqPlanCLITests' LanguageServerProtocolTests with the binary it built; by hand:
    REQPLAN_BINARY=.build/debug/reqplan python3 -m pytest -q Tests/lsp
"""
import asyncio
import os

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

BINARY = os.environ.get("REQPLAN_BINARY", ".build/debug/reqplan")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BINARY, "lsp", "--check-delay", "50"]))
async def client(lsp_client: LanguageClient):
    # Neovim's capabilities (pytest-lsp keeps those of real clients): related information included.
    # Each exchange is bounded: a stuck server fails the test instead of hanging it.
    await asyncio.wait_for(
        lsp_client.initialize_session(types.InitializeParams(capabilities=client_capabilities("neovim"))), 10)
    yield
    await asyncio.wait_for(lsp_client.shutdown_session(), 10)
    # LSP 3.17: `exit` after `shutdown` ends the server with status 0.
    assert lsp_client._server.returncode == 0
