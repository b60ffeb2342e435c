-- :PaiWhy [job] [cluster]: why a job failed, and where (the daemon's explanation, `pai.job.why`):
-- the quickfix list on the traceback's frames in your own files (the deepest first, an error; the
-- calling frames after it), and the short report in a read-only buffer `pai://why/<job>`. A job
-- submitted from this Neovim that fails fills the quickfix list by itself and says why in one line.
local client = require("pai_lsp.client")
local i18n = require("pai_lsp.i18n")
local ui = require("pai_lsp.ui")
local t = i18n.t

local M = {}

M.last = nil -- {job, cluster}: the last job that failed here, what :PaiWhy without a job explains

local function pick(text)
  if type(text) ~= "table" then
    return ""
  end
  return i18n.locale() == "zh-CN" and text.zh or text.en
end

local function frames_of(why)
  local tb = why.traceback
  if type(tb) ~= "table" then
    return {}
  end
  local frames = {}
  if type(tb.primary) == "table" then
    table.insert(frames, tb.primary)
  end
  for _, frame in ipairs(tb.related or {}) do
    table.insert(frames, frame)
  end
  return frames
end

local function file_of(result, frame)
  if type(frame.workspace) ~= "string" then
    return nil
  end
  local root = type(result.workspace) == "string" and result.workspace or vim.fn.getcwd()
  return root .. "/" .. frame.workspace
end

--- The quickfix items of an explanation: the deepest user frame (E, with the sentence), then the
--- frames that called it (I); frames not on a workspace file are left out.
function M.items(result)
  local why = result.explanation
  local cause = type(why.cause) == "table" and why.cause or why
  local items = {}
  for i, frame in ipairs(frames_of(cause)) do
    local file = file_of(result, frame)
    if file then
      local text
      if i == 1 then
        text = ("%s: %s"):format(result.job, pick(why.message))
      else
        text = type(frame["function"]) == "string" and t("called from %s", frame["function"]) or t("called from here")
      end
      table.insert(items, { filename = file, lnum = frame.line, col = 1, type = i == 1 and "E" or "I", text = text })
    end
  end
  return items
end

--- The report's lines: what happened and what to do, how it ended, where, the evidence.
function M.report(result)
  local why = result.explanation
  if type(why) ~= "table" then
    return { ("%s: %s"):format(result.job, ui.value(result.state) or "?"), t("nothing to explain: it did not fail") }
  end
  local cause = type(why.cause) == "table" and why.cause or why
  local task = type(cause.role) == "string" and (" (%s:%s)"):format(cause.role, cause.index) or ""
  local lines = { ("%s: %s — %s%s"):format(result.job, result.state, pick(why.title), task), "", pick(why.message) }
  local how = pick(type(why.exitWords) == "table" and why.exitWords or cause.exitWords)
  if how ~= "" then
    table.insert(lines, how)
  end
  local changed = {}
  for _, name in ipairs(result.changed or {}) do
    changed[name] = true
  end
  local frames = frames_of(cause)
  if #frames > 0 then
    vim.list_extend(lines, { "", t("Where:") })
    for _, frame in ipairs(frames) do
      local name = type(frame.workspace) == "string" and frame.workspace or frame.path
      local fn = type(frame["function"]) == "string" and (" " .. t("in %s", frame["function"])) or ""
      local note = changed[frame.workspace] and (" (" .. t("changed since the upload") .. ")") or ""
      table.insert(lines, ("  %s:%d%s%s"):format(name, frame.line, fn, note))
    end
  end
  local evidence = (cause.evidence and #cause.evidence > 0) and cause.evidence or cause.lastLines or {}
  if #evidence > 0 then
    vim.list_extend(lines, { "", (cause.evidence and #cause.evidence > 0) and t("Evidence:") or t("Last lines:") })
    for _, e in ipairs(evidence) do
      table.insert(lines, e.line ~= 0 and ("  %d: %s"):format(e.line, e.text) or ("  " .. e.text))
    end
  end
  return lines
end

local function fill(result)
  vim.fn.setqflist({}, " ", { title = "PaiWhy " .. result.job, items = M.items(result) })
end

--- :PaiWhy: the quickfix list and the report of `job` (nil: the last one that failed here).
function M.open(job, cluster)
  if (not job or job == "") and M.last then
    job, cluster = M.last.job, M.last.cluster
  end
  if not job or job == "" then
    ui.error(t("which job? :PaiWhy {job}"))
    return
  end
  client.execute("pai.job.why", { { job = job, cluster = cluster } }, function(result)
    if type(result.explanation) == "table" then
      fill(result)
    end
    ui.show_text("pai://why/" .. job, M.report(result), "markdown")
  end)
end

--- A job submitted here failed: the quickfix list on its frames, and why in one line.
function M.failed(job, cluster)
  M.last = { job = job, cluster = cluster }
  client.execute("pai.job.why", { { job = job, cluster = cluster } }, function(result)
    if type(result.explanation) ~= "table" then
      return
    end
    fill(result)
    local where = M.items(result)[1]
    local at = where and (" (%s:%d)"):format(vim.fn.fnamemodify(where.filename, ":."), where.lnum) or ""
    ui.notify(t("why %s failed: %s", job, pick(result.explanation.title)) .. at .. " — :PaiWhy", vim.log.levels.WARN)
  end, function()
    return true -- the end of the job was said already; no second message
  end)
end

return M
