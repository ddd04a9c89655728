-- Drives `ptl lsp` from a headless Neovim as a user's editor would, and prints what the
-- editor shows: the diagnostics of the open file, then the hover at the last occurrence
-- of $PTL_HOVER. Run by editors/nvim/check.sh.
local out = io.stdout
require("ptl")
-- Setting the filetype starts the server (see ptl.lua).
vim.bo.filetype = "ptl"
vim.wait(10000, function()
  local c = vim.lsp.get_active_clients()[1]
  return c ~= nil and c.initialized
end, 20)
vim.wait(5000, function() return #vim.diagnostic.get(0) > 0 end, 20)
for _, d in ipairs(vim.diagnostic.get(0)) do
  out:write(string.format("diagnostic %d:%d [%s] %s\n", d.lnum + 1, d.col + 1, tostring(d.code or ""), d.message:gsub("\n.*", "")))
end
local word = os.getenv("PTL_HOVER")
if word then
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  for lnum = #lines, 1, -1 do
    local col = lines[lnum]:find(word, 1, true)
    if col then
      local params = { textDocument = vim.lsp.util.make_text_document_params(), position = { line = lnum - 1, character = col - 1 } }
      local res = vim.lsp.buf_request_sync(0, "textDocument/hover", params, 5000) or {}
      for _, r in pairs(res) do
        local contents = r.result and r.result.contents
        local text = type(contents) == "table" and (contents.value or vim.inspect(contents)) or tostring(contents)
        out:write(string.format("hover %d:%d %s\n", lnum, col, text:gsub("\n", " | ")))
      end
      break
    end
  end
end
out:flush()
vim.cmd("qa!")
