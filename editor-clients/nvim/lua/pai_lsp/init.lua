-- Thin Neovim client for pai-lsp: starts the server for *.pai.json (and PaddlePaddle Cloud *.paddle.json) buffers.
-- Works with Neovim 0.7+ (vim.lsp.start_client) and uses vim.lsp.start where it exists (0.8+).
local M = {}

M.config = {
  cmd = { "pai-lsp" },
  settings = {}, -- e.g. { pai = { cluster = { kind = "scm" } } }
}

local function root_dir(path)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local found = vim.fn.finddir(".vscode", dir .. ";")
  if found ~= "" then
    return vim.fn.fnamemodify(found, ":p:h:h")
  end
  return dir
end

function M.attach(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local config = {
    name = "pai-lsp",
    cmd = M.config.cmd,
    root_dir = root_dir(path),
    init_options = M.config.settings,
    settings = M.config.settings,
  }
  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  M.client_id = M.client_id or vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(bufnr, M.client_id)
  return M.client_id
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    pattern = { "*.pai.json", "*.paddle.json" },
    callback = function(args)
      M.attach(args.buf)
    end,
  })
end

-- :PaiSubmit / :PaiRunLocally run the server's commands on the current file.
function M.command(name)
  local uri = vim.uri_from_bufnr(0)
  vim.lsp.buf.execute_command({ command = name, arguments = { uri } })
end

return M
