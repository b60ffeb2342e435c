-- Live logs: one read-only buffer `pai://logs/<job>` per job, filled from `pai/jobLog`.
-- Each chunk says which bytes of which task's log it holds, so a chunk seen before (a resumed
-- relay, a restarted server or daemon) is never written twice, and following again after a
-- restart asks only for the bytes this buffer does not have. The buffer keeps filling while hidden.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

M.window = "split" -- how a log buffer opens: "split", "vsplit", "tab" or "current"

local logs = {} -- job name -> log (below)

local function buffer_of(log)
  if log.buf and vim.api.nvim_buf_is_valid(log.buf) then
    return log.buf
  end
  local buf = ui.scratch("pai://logs/" .. log.job, "pailog", true)
  log.buf = buf
  vim.api.nvim_buf_set_var(buf, "pai_job", log.job)
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      -- Wiped: stop relaying; :PaiLogs shows the whole log again from the start.
      if logs[log.job] == log then
        logs[log.job] = nil
        if log.following then
          client.execute("pai.job.unfollow", { { job = log.job, cluster = log.cluster } }, nil, function() return true end)
        end
      end
    end,
  })
  return buf
end

--- The log of `job` (created empty when new).
local function get(job, cluster)
  local log = logs[job]
  if log and cluster and log.cluster and log.cluster ~= cluster then
    -- The same name on another cluster: start afresh.
    log = nil
  end
  if not log then
    log = { job = job, cluster = cluster, have = {}, partial = {}, tasks = {}, count = 0,
      following = false, ended = false }
    logs[job] = log
  end
  log.cluster = log.cluster or cluster
  buffer_of(log)
  return log
end

-- The part of a chunk not written before ("" when none): `text` stands for `length` bytes of the
-- task's log from byte `offset`.
local function accept(log, p)
  local have = log.have[p.task] or 0
  local finish = p.offset + p.length
  if finish <= have then
    return ""
  end
  local text = p.text
  if p.offset < have then
    text = text:sub(have - p.offset + 1)
  end
  log.have[p.task] = finish
  return text
end

-- A line as a terminal shows it: without its line end, only what follows the last carriage return.
local function shown(line)
  line = line:gsub("\r+$", "")
  local last = line:match("^.*\r(.*)$")
  return last or line
end

-- Write the lines `text` completes; each task's unfinished line stays shown at the end of the
-- buffer until its newline (or, with `flush`, the end of the relay) arrives.
local function write(log, task, text, flush)
  if not log.partial[task] then
    log.partial[task] = ""
    table.insert(log.tasks, task)
  end
  if text == "" and not (flush and log.partial[task] ~= "") then
    return
  end
  local pieces = vim.split(log.partial[task] .. text, "\n", { plain = true })
  log.partial[task] = table.remove(pieces)
  if flush and log.partial[task] ~= "" then
    table.insert(pieces, log.partial[task])
    log.partial[task] = ""
  end
  local function lead(name)
    return log.prefix and ("[" .. name .. "] ") or ""
  end
  local lines = {}
  for _, piece in ipairs(pieces) do
    table.insert(lines, lead(task) .. shown(piece))
  end
  local committed = #lines
  for _, other in ipairs(log.tasks) do
    if log.partial[other] ~= "" then
      table.insert(lines, lead(other) .. shown(log.partial[other]))
    end
  end
  local buf = buffer_of(log)
  -- Windows whose cursor is on the last line follow the end, as `tail -f`.
  local last = vim.api.nvim_buf_line_count(buf)
  local following = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf and vim.api.nvim_win_get_cursor(win)[1] >= last then
      table.insert(following, win)
    end
  end
  ui.set_lines(buf, log.count, -1, lines)
  log.count = log.count + committed
  local total = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(following) do
    vim.api.nvim_win_set_cursor(win, { total, 0 })
  end
end

local function flush(log)
  for _, task in ipairs(log.tasks) do
    write(log, task, "", true)
  end
end

local function append_note(log, message)
  flush(log)
  local buf = buffer_of(log)
  ui.set_lines(buf, log.count, -1, { "[pai] " .. message })
  log.count = log.count + 1
end

function M.offsets(log)
  local offsets = vim.empty_dict()
  for task, have in pairs(log.have) do
    offsets[task] = have
  end
  return offsets
end

local function follow(log)
  log.following = true
  client.execute("pai.job.follow", { { job = log.job, cluster = log.cluster, offsets = M.offsets(log) } }, nil,
    function(result)
      log.following = false
      append_note(log, result.message or t("could not follow the log"))
      ui.error(log.job .. ": " .. (result.message or t("could not follow the log")))
      return true
    end)
end

--- A job submitted from this Neovim: its log buffer, shown without leaving the current window
--- (the server relays its log by itself).
function M.started(job, cluster)
  local log = get(job, cluster)
  log.following = true
  if M.window then
    local here = vim.api.nvim_get_current_win()
    ui.show(log.buf, M.window)
    vim.api.nvim_set_current_win(here)
  end
end

--- :PaiLogs {job}: the job's log buffer, and the part of the log it does not have yet.
function M.open(job, cluster)
  local log = get(job, cluster)
  ui.show(log.buf, M.window or "split")
  if not log.ended and not log.following then
    follow(log)
  end
end

--- Job names with a log buffer or in a job list (for completion).
function M.jobs()
  local names = vim.tbl_keys(logs)
  for _, name in ipairs(require("pai_lsp.jobs").names()) do
    if not logs[name] then
      table.insert(names, name)
    end
  end
  table.sort(names)
  return names
end

client.on("pai/jobLog", function(p)
  local log = get(p.job, ui.value(p.cluster))
  if p.offset > (log.have[p.task] or 0) then
    -- Bytes before this chunk never arrived here (a relay that began without this buffer):
    -- ask again from what the buffer has, so no line is lost.
    if not log.refollowing then
      log.refollowing = true
      follow(log)
    end
    return
  end
  log.refollowing = false
  local fresh = accept(log, p)
  if fresh ~= "" then
    log.prefix = log.prefix or (ui.value(p.taskCount) or 1) > 1
    write(log, p.task, fresh)
  end
end)

client.on("pai/jobLogEnd", function(p)
  local log = logs[p.job]
  if not log then
    return
  end
  flush(log)
  log.following = false
  local state = ui.value(p.state)
  log.ended = state ~= nil and ui.FINAL[state] == true
  if ui.value(p.message) then
    append_note(log, p.message)
    ui.notify(log.job .. ": " .. p.message, vim.log.levels.WARN)
  end
end)

-- A job that waits: why, in its log buffer (the daemon's explanation, at most once a minute).
local waiting_said = {}
client.on("pai/jobStatus", function(p)
  local log = logs[p.job]
  local now = (vim.uv or vim.loop).now()
  if not log or ui.value(p.state) ~= "WAITING" or now - (waiting_said[p.job] or -60000) < 60000 then
    return
  end
  waiting_said[p.job] = now
  client.execute("pai.job.waiting", { { job = log.job, cluster = log.cluster } }, function(result)
    if result.state == "WAITING" then
      for _, line in ipairs(result.lines or {}) do
        append_note(log, line)
      end
    end
  end, function()
    return true -- a cluster that cannot tell, or is unreachable: the buffer says nothing more
  end)
end)

local function any_following()
  for _, log in pairs(logs) do
    if log.following then
      return true
    end
  end
  return false
end

client.keep_alive(any_following)

-- A restarted server has no relays: follow again from what each buffer has.
client.on_start(function()
  for _, log in pairs(logs) do
    if not log.ended and log.following then
      follow(log)
    end
  end
end)

return M
