-- :PaiPreview: what :PaiSubmit would send, nothing sent — the files (count, size, the largest, how
-- many unchanged since the last upload), the job's name and its final config — as the server
-- writes it (`pai.previewUpload`'s `text`), in a read-only buffer `pai://preview/<file>`.
-- :PaiRendered: the job as the server will see it (a v2 job's templates filled in, its deployment
-- merged, the defaults applied, secrets masked: `pai.previewRendered`'s `text`), in a read-only
-- buffer `pai://rendered/<file>` of filetype yaml (json for a v1 config).
local client = require("pai_lsp.client")
local submit = require("pai_lsp.submit")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local previews = {} -- buffer name -> {uri, cluster, command}: what `R` asks again

local function show(name)
  local asked = previews[name]
  client.execute(asked.command, { { uri = asked.uri, cluster = asked.cluster } }, function(result)
    ui.show_text(name, ui.lines(result.text), result.language or "paipreview", {
      { "R", function() show(name) end, t("preview again (the files as they are now)") },
    })
  end)
end

--- Open the preview `what` ("preview": the upload; "rendered": the job as the server will see it) of
--- the job file in `bufnr`, written by the server command `command`, for `cluster`.
local function open(bufnr, cluster, what, command, prompt)
  local path, uri = submit.config(bufnr, t(prompt, submit.job_files()))
  if path then
    local name = "pai://" .. what .. "/" .. vim.fn.fnamemodify(path, ":.")
    previews[name] = { uri = uri, cluster = cluster, command = command }
    show(name)
  end
end

--- Preview the upload of the config in `bufnr` (0: the current buffer) to `cluster` (nil: the
--- default one).
function M.open(bufnr, cluster)
  open(bufnr, cluster, "preview", "pai.previewUpload", "open a job file (%s) to preview its upload")
end

--- The job in `bufnr` (0: the current buffer) as the server of `cluster` (nil: the default one) will
--- see it.
function M.rendered(bufnr, cluster)
  open(bufnr, cluster, "rendered", "pai.previewRendered", "open a job file (%s) to see it rendered")
end

return M
