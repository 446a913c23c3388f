-- Drives Neovim's built-in LSP client (0.7 and later) against `reqplan lsp` (issue 22): opens a plan, types a
-- misspelt step id in `needs:` with keys, waits for the diagnostic, clears the word, asks for completion there
-- and accepts the item for the real step id with the edit it carries, waits for the diagnostics to clear, and
-- writes what it saw as JSON (NeovimLanguageServerTests reads it). Every wait is bounded: a server that does not
-- answer ends the session with `error` set.
-- Run: REQPLAN=… PLAN=… OUT=… nvim --headless -u NONE -i NONE -n -c "luafile session.lua"
local reqplan, plan, out = os.getenv("REQPLAN"), os.getenv("PLAN"), os.getenv("OUT")
local seen = { steps = {} }
local function note(step) table.insert(seen.steps, step) end
local function finish()
  local file = assert(io.open(out, "w"))
  file:write(vim.fn.json_encode(seen))
  file:close()
  vim.cmd("qall!")
end
local ok, failure = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(plan))
  local buffer = vim.api.nvim_get_current_buf()
  local client = vim.lsp.start_client({
    name = "reqplan", cmd = { reqplan, "lsp" }, root_dir = vim.fn.fnamemodify(plan, ":p:h"),
  })
  assert(client, "the client did not start")
  vim.lsp.buf_attach_client(buffer, client)
  assert(vim.wait(10000, function()
    local started = vim.lsp.get_client_by_id(client)
    return started ~= nil and started.initialized == true
  end, 20), "the server did not initialize")
  note("initialized")
  -- Nothing is wrong with the plan as written.
  vim.wait(1500, function() return #vim.diagnostic.get(buffer) > 0 end, 20)
  seen.diagnostics_at_open = #vim.diagnostic.get(buffer)

  -- Type a misspelt step id over `login` in `needs: [login]`, as a user would: keys, in normal mode.
  vim.fn.cursor(1, 1)
  assert(vim.fn.search("needs: \\[\\zslogin") > 0, "no `needs: [login]` in the plan")
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("ciwlogni<Esc>", true, false, true), "xt", false)
  seen.typed_line = vim.api.nvim_get_current_line()
  assert(vim.wait(5000, function() return #vim.diagnostic.get(buffer) > 0 end, 20), "no diagnostic came")
  local diagnostic = vim.diagnostic.get(buffer)[1]
  -- Neovim turns the server's UTF-16 range into bytes of the line: the text under it is the misspelt id only
  -- when the server counted the non-ASCII text before it right.
  local line = vim.api.nvim_buf_get_lines(buffer, diagnostic.lnum, diagnostic.lnum + 1, false)[1]
  seen.diagnostic = {
    message = diagnostic.message, code = diagnostic.code, severity = diagnostic.severity,
    line = diagnostic.lnum, under = line:sub(diagnostic.col + 1, diagnostic.end_col),
  }
  note("diagnostic")

  -- Clear the word and ask for completion where it was.
  vim.fn.cursor(1, 1)
  assert(vim.fn.search("needs: \\[\\zslogni") > 0)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("ciw<Esc>", true, false, true), "xt", false)
  local row = vim.fn.line(".") - 1
  local column = vim.fn.col(".") -- after <Esc> the cursor sits on `[`; the word went after it
  -- LSP counts UTF-16 code units: the second count str_utfindex gives (the first is UTF-32).
  local _, character = vim.str_utfindex(vim.api.nvim_get_current_line(), column)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buffer) }, position = { line = row, character = character } }
  local answers = vim.lsp.buf_request_sync(buffer, "textDocument/completion", params, 5000)
  assert(answers and answers[client] and answers[client].result, "no completion answer")
  local result = answers[client].result
  local items = result.items or result
  seen.completion_labels = {}
  local chosen
  for _, item in ipairs(items) do
    table.insert(seen.completion_labels, item.label)
    if item.label == "login" then chosen = item end
  end
  assert(chosen, "`login` is not offered")
  -- Accept it: the edit completion applies.
  if chosen.textEdit then
    vim.lsp.util.apply_text_edits({ chosen.textEdit }, buffer, "utf-16")
  else
    vim.api.nvim_buf_set_text(buffer, row, column, row, column, { chosen.insertText or chosen.label })
  end
  seen.accepted_line = vim.api.nvim_buf_get_lines(buffer, row, row + 1, false)[1]
  note("accepted")
  assert(vim.wait(5000, function() return #vim.diagnostic.get(buffer) == 0 end, 20), "the diagnostic stayed")
  note("cleared")
end)
if not ok then seen.error = tostring(failure) end
finish()
