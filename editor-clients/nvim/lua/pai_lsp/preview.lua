-- :PaiPreview: what :PaiSubmit would send, nothing sent — the files (count, size, the largest, how
-- many unchanged since the last upload), the job's name and its final config — as the server
-- writes it (`pai.previewUpload`'s `text`), in a read-only buffer `pai://preview/<file>`.
local client = require("pai_lsp.client")
local submit = require("pai_lsp.submit")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local previews = {} -- buffer name -> {uri, cluster}: what `R` asks again

local function show(name)
  local asked = previews[name]
  client.execute("pai.previewUpload", { { uri = asked.uri, cluster = asked.cluster } }, function(result)
    ui.show_text(name, ui.lines(result.text), "paipreview", {
      { "R", function() show(name) end, t("preview again (the files as they are now)") },
    })
  end)
end

--- Preview the upload of the config in `bufnr` (0: the current buffer) to `cluster` (nil: the
--- default one).
function M.open(bufnr, cluster)
  local path, uri = submit.config(bufnr, t("open a job file (%s) to preview its upload", submit.job_files()))
  if path then
    local name = "pai://preview/" .. vim.fn.fnamemodify(path, ":.")
    previews[name] = { uri = uri, cluster = cluster }
    show(name)
  end
end

return M
