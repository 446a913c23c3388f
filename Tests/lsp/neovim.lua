-- Neovim's built-in LSP client against `reqplan lsp`, headless (run by ReqPlanCLITests' NeovimLSPTests):
--   REQPLAN_BINARY=.build/debug/reqplan REQPLAN_PLAN=plan.yaml REQPLAN_SEEN=seen.txt \
--     nvim --headless -u NONE -n -c 'luafile Tests/lsp/neovim.lua'
-- It opens the plan, types a misspelt step id into `needs: []`, waits for the diagnostic, accepts the
-- completion `login` for it, waits for the diagnostics to clear, and writes what it saw, a line each, to
-- REQPLAN_SEEN. `vim.lsp.start_client` and `buf_attach_client`: the API of Debian's Neovim (0.7) that later
-- versions keep.
local seen = {}
local function note(line) table.insert(seen, line) end

local function run()
  local client_id = vim.lsp.start_client({
    name = 'reqplan',
    cmd = { os.getenv('REQPLAN_BINARY'), 'lsp' },
    root_dir = vim.fn.fnamemodify(os.getenv('REQPLAN_PLAN'), ':h'),
  })
  assert(client_id, 'the client did not start')
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('REQPLAN_PLAN')))
  vim.lsp.buf_attach_client(0, client_id)
  assert(vim.wait(10000, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end, 20), 'the server did not initialize')

  -- Type `logn` between the brackets of `needs: []` on line 5, as an edit of the buffer.
  local row = 4
  local line = vim.api.nvim_buf_get_lines(0, row, row + 1, false)[1]
  local at = line:find('[]', 1, true)
  assert(at, 'no `needs: []` on line 5')
  vim.api.nvim_buf_set_text(0, row, at, row, at, { 'logn' })
  assert(vim.wait(10000, function() return #vim.diagnostic.get(0) > 0 end, 20), 'no diagnostic came')
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    -- `col` is a byte offset: Neovim converts the server's UTF-16 positions with the line's text.
    note(string.format('diagnostic %s %d:%d-%d:%d %s', lsp.code or d.code or '?', d.lnum, d.col, d.end_lnum,
      d.end_col, (d.message:gsub('\n', ' | '))))
  end

  -- Ask for completion at the end of `logn` and accept `login`, as a completion menu does: apply its edit.
  local column = at + #'logn'
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(0),
    -- `str_utfindex` gives the UTF-32 index, then the UTF-16 one: LSP wants the second.
    position = { line = row, character = select(2, vim.str_utfindex(line:sub(1, at) .. 'logn', column)) },
  }
  local responses = vim.lsp.buf_request_sync(0, 'textDocument/completion', params, 10000) or {}
  local accepted
  for _, response in pairs(responses) do
    local result = response.result or {}
    for _, item in ipairs(result.items or result) do
      if item.label == 'login' then accepted = item end
    end
  end
  assert(accepted and accepted.textEdit, 'no completion `login` with an edit')
  vim.lsp.util.apply_text_edits({ accepted.textEdit }, 0, 'utf-16')
  note('line ' .. vim.api.nvim_buf_get_lines(0, row, row + 1, false)[1])
  note('cleared ' .. tostring(vim.wait(10000, function() return #vim.diagnostic.get(0) == 0 end, 20)))
  vim.lsp.stop_client(client_id)
end

local ok, problem = pcall(run)
if not ok then note('error ' .. tostring(problem)) end
local out = assert(io.open(os.getenv('REQPLAN_SEEN'), 'w'))
out:write(table.concat(seen, '\n') .. '\n')
out:close()
vim.cmd(ok and 'qall!' or 'cquit!')
