-- Neovim (0.7 or later) configuration for ptl: `ptl lsp` as the language server of `.ptl`
-- files. Put this file on the runtime path (for example as ~/.config/nvim/plugin/ptl.lua),
-- or `:luafile` it. Set vim.g.ptl_command to the ptl binary if it is not on PATH.
vim.cmd([[autocmd BufRead,BufNewFile *.ptl setfiletype ptl]])
vim.cmd([[autocmd FileType ptl setlocal commentstring=//\ %s]])

local function start()
  local cmd = vim.g.ptl_command or "ptl"
  local id = vim.lsp.start_client({
    name = "ptl",
    cmd = { cmd, "lsp" },
    root_dir = vim.fn.getcwd(),
  })
  if id then
    vim.lsp.buf_attach_client(0, id)
  end
  return id
end

vim.api.nvim_create_autocmd("FileType", { pattern = "ptl", callback = start })

return { start = start }
