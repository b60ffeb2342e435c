-- :PaiSubmit / :PaiRun: save the config, run the server's submit with a progress token of ours
-- (upload progress arrives as `$/progress`, shown by vim.notify and by any status-line plugin that
-- reads LSP progress; :PaiCancel stops an upload), open the job's live log, and say once how each
-- watched job ended (`pai/jobEnded`: started here or anywhere else).
local client = require("pai_lsp.client")
local logs = require("pai_lsp.logs")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local PROGRESS_EVERY_MS = 1000

local progress = {} -- token -> {title, shown (ms), record}
local uploading = {} -- tokens of submits that may still be cancelled
local started = {} -- job name -> true: jobs submitted from this Neovim, not ended yet
local sequence = 0

local function now_ms()
  return (vim.uv or vim.loop).now()
end

--- A fresh progress token (the server reports the upload on it).
function M.token(kind)
  sequence = sequence + 1
  return ("pai-nvim-%s-%d-%d"):format(kind, vim.fn.getpid(), sequence)
end

client.on("$/progress", function(p)
  local value = p.value or {}
  local entry = progress[p.token]
  if value.kind == "begin" then
    entry = { title = value.title or "pai", shown = now_ms() }
    progress[p.token] = entry
    entry.record = ui.notify(entry.title .. (ui.value(value.message) and (": " .. value.message) or ""))
  elseif value.kind == "report" and entry then
    local pct = ui.value(value.percentage)
    if now_ms() - entry.shown >= PROGRESS_EVERY_MS or pct == 100 then
      entry.shown = now_ms()
      local text = entry.title .. ": " .. (ui.value(value.message) or "") .. (pct and (" (" .. pct .. "%)") or "")
      entry.record = ui.notify(text, nil, { replace = entry.record })
    end
    if pct == 100 then
      uploading[p.token] = nil -- uploaded: too late to cancel
    end
  elseif value.kind == "end" then
    progress[p.token] = nil
    uploading[p.token] = nil
  end
end)

local function upload_summary(upload)
  upload = ui.value(upload)
  if not upload then
    return ""
  end
  local sent, unchanged = upload.sent_files or 0, upload.unchanged_files or 0
  return sent == 1 and t(", %d file uploaded, %d unchanged", sent, unchanged) or t(", %d files uploaded, %d unchanged", sent, unchanged)
end

--- Where the code went when it went to a storage the job mounts ("1 file → storage local:/me~job,
--- mounted at /mnt/local"), else nil.
local function code_storage_line(result)
  local to = ui.value(result.codeStorage)
  if not to then
    return nil
  end
  local upload = ui.value(result.upload) or {}
  local files = (upload.sent_files or 0) + (upload.unchanged_files or 0)
  return files == 1 and t("%d file → storage %s:%s, mounted at %s", files, to.storage, to.path, to.mountPath)
    or t("%d files → storage %s:%s, mounted at %s", files, to.storage, to.path, to.mountPath)
end

--- The job files there are, as messages name them ("*.pai.json, *.paddle.json").
function M.job_files()
  return table.concat(client.job_file_patterns(), ", ")
end

--- Submit the config in `bufnr` to `cluster` (nil: the default one); `local_run` uses the embedded
--- local cluster.
--- The job config in `bufnr` (0: the current buffer) as a command needs it: written if it has
--- changes (the daemon reads the file on disk), the server attached. Returns its path and URI, or
--- nothing after saying `not_config` when the buffer holds no job config.
function M.config(bufnr, not_config)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local path = vim.api.nvim_buf_get_name(bufnr)
  if not client.is_job_file(path) then
    ui.error(not_config)
    return nil
  end
  if vim.bo[bufnr].modified then
    vim.api.nvim_buf_call(bufnr, function() vim.cmd("silent write") end)
  end
  client.attach(bufnr)
  return path, vim.uri_from_fname(vim.fn.fnamemodify(path, ":p"))
end

function M.submit(bufnr, cluster, local_run)
  local path, uri = M.config(bufnr, t("open a job file (%s) to submit it", M.job_files()))
  if not path then
    return
  end
  local token = M.token("submit")
  uploading[token] = true
  local command = local_run and "pai.runLocally" or "pai.submitJob"
  local argument = { uri = uri, workDoneToken = token, cluster = cluster }
  client.execute(command, { argument }, function(result)
    uploading[token] = nil
    started[result.job] = result.cluster
    ui.notify(t("job %s submitted to %s%s", result.job, result.cluster, upload_summary(result.upload)))
    local where = code_storage_line(result)
    if where then
      ui.notify(where)
    end
    logs.started(result.job, result.cluster)
  end, function(result)
    uploading[token] = nil
    if result.kind == "cancelled" then
      ui.notify(result.message, vim.log.levels.WARN)
      return true
    end
  end)
end

--- :PaiCancel: stop the uploads of submits still uploading (nothing of them is submitted).
function M.cancel()
  local any = false
  for token in pairs(uploading) do
    client.notify("window/workDoneProgress/cancel", { token = token })
    any = true
  end
  if not any then
    ui.notify(t("no upload to cancel"))
  end
end

--- A job's end, told by pai_lsp.notices: one started here that failed also gets its diagnostics.
function M.ended(job, state)
  if started[job] and ui.FINAL[state] then
    local cluster = started[job]
    started[job] = nil
    if state == "FAILED" then
      require("pai_lsp.why").failed(job, cluster)
    end
  end
end

return M
