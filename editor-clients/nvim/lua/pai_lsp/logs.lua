-- Live logs: one read-only buffer `pai://logs/<job>` per job, filled from `pai/jobLog`.
-- Each chunk says which bytes of which task's log it holds, so a chunk seen before (a resumed
-- relay, a restarted server or daemon) is never written twice, and following again after a
-- restart asks only for the bytes this buffer does not have. The buffer keeps filling while hidden.
-- A filter (roles, task indices, a Vim regular expression) shows only the lines it wants, of those
-- kept so far and of those still to come; `f` in the buffer or :PaiLogFilter sets it. A log this
-- Neovim has nothing of starts at the last TAIL_BYTES of each task (a 1 GB log does not come
-- whole); `<` reads earlier lines, EARLIER_BYTES of each task at a time.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

M.window = "split" -- how a log buffer opens: "split", "vsplit", "tab" or "current"

local logs = {} -- job name -> log (below)
local KEPT_LINES = 200000 -- lines kept per job for a filter to choose from (the oldest go first)
M.TAIL_BYTES = 1048576 -- of each task's log, when a log is opened that this Neovim has none of
M.EARLIER_BYTES = 1048576 -- of each task's log read backwards by `<`
local last_shown = nil -- the log shown last: what :PaiLogFilter filters outside a log buffer

--- A filter from words: `role:NAME` / `--role NAME`, `task:N` / `index:N` / `--index N`, `--grep TEXT`
--- (the rest of the words) and any other words (the text). The text is a Vim regular expression (as
--- for `/`), case ignored. Returns the filter (nil: every line) and its words, or nil and a message.
function M.filter_of(words)
  local roles, indices, text = {}, {}, {}
  local i = 1
  while i <= #words do
    local word = words[i]
    local role = word:match("^role:(.+)$")
    local index = word:match("^task:(%d+)$") or word:match("^index:(%d+)$")
    if word == "--role" or word == "--index" then
      local value = words[i + 1]
      if not value or (word == "--index" and not value:match("^%d+$")) then
        return nil, t("%s needs a value (%s)", word, word == "--role" and t("a role's name") or t("a task index"))
      end
      if word == "--role" then
        table.insert(roles, value)
      else
        table.insert(indices, tonumber(value))
      end
      i = i + 1
    elseif word == "--grep" then
      vim.list_extend(text, vim.list_slice(words, i + 1))
      break
    elseif role then
      table.insert(roles, role)
    elseif index then
      table.insert(indices, tonumber(index))
    else
      table.insert(text, word)
    end
    i = i + 1
  end
  local filter = { roles = roles, indices = indices, text = table.concat(text, " ") }
  if filter.text ~= "" then
    local ok, regex = pcall(vim.regex, "\\c" .. filter.text)
    if not ok then
      return nil, t("not a regular expression: %s", filter.text)
    end
    filter.regex = regex
  end
  if #roles == 0 and #indices == 0 and filter.text == "" then
    return false
  end
  return filter
end

--- The filter as words (what `f` offers to edit).
function M.filter_words(filter)
  if not filter then
    return ""
  end
  local words = {}
  for _, role in ipairs(filter.roles) do
    table.insert(words, "role:" .. role)
  end
  for _, index in ipairs(filter.indices) do
    table.insert(words, "task:" .. index)
  end
  if filter.text ~= "" then
    table.insert(words, filter.text)
  end
  return table.concat(words, " ")
end

-- Does `filter` want the line `line` of task `task` ("role:index"; false for the plugin's own notes)?
local function wants(filter, task, line)
  if not filter or not task then
    return true
  end
  local role, index = task:match("^(.*):(%d+)$")
  role, index = role or task, tonumber(index)
  if #filter.roles > 0 and not vim.tbl_contains(filter.roles, role) then
    return false
  end
  if #filter.indices > 0 and not vim.tbl_contains(filter.indices, index) then
    return false
  end
  return not filter.regex or filter.regex:match_str(line) ~= nil
end

-- Remember a whole line for later filters (at most KEPT_LINES, the oldest go first).
local function keep(log, task, line)
  table.insert(log.kept, { task, line })
  if #log.kept > KEPT_LINES * 1.1 then
    log.kept = vim.list_slice(log.kept, #log.kept - KEPT_LINES + 1)
  end
end

local function buffer_of(log)
  if log.buf and vim.api.nvim_buf_is_valid(log.buf) then
    return log.buf
  end
  local buf = ui.scratch("pai://logs/" .. log.job, "pailog", true)
  log.buf = buf
  vim.api.nvim_buf_set_var(buf, "pai_job", log.job)
  ui.keymaps(buf, t(":PaiLogs keys"), {
    { "f", function() M.ask_filter(log.job) end, t("filter: role:NAME task:N and a regular expression; empty: every line") },
    { "<", function() M.earlier(log.job) end, t("earlier lines (a log opened at its end)") },
    { "<CR>", M.open_frame, t("on a traceback frame (File \"…\", line N): that line of the workspace's file") },
  })
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
      following = false, ended = false, kept = {}, filter = nil,
      first = {}, cut = {}, heads = {} } -- per task: where its log here starts, whether its first line is still cut, that line's start
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
  if log.cut[task] then
    -- Opened at its tail: the line the tail starts in is held back until `<` reads what is before it.
    local at = text:find("\n", 1, true)
    log.heads[task] = (log.heads[task] or "") .. text:sub(1, at or #text)
    if not at then
      return
    end
    log.cut[task] = nil
    text = text:sub(at + 1)
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
    local line = shown(piece)
    keep(log, task, line)
    if wants(log.filter, task, line) then
      table.insert(lines, lead(task) .. line)
    end
  end
  local committed = #lines
  for _, other in ipairs(log.tasks) do
    local partial = log.partial[other] ~= "" and shown(log.partial[other])
    if partial and wants(log.filter, other, partial) then
      table.insert(lines, lead(other) .. partial)
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
  keep(log, false, "[pai] " .. message)
  ui.set_lines(buf, log.count, -1, { "[pai] " .. message })
  log.count = log.count + 1
end

--- Show only what `filter` wants (nil or false: every line), of the lines kept and from now on;
--- `quiet`: say nothing and leave the cursor where it is.
function M.refilter(job, filter, quiet)
  local log = logs[job]
  if not log then
    return
  end
  log.filter = filter or nil
  local lines = {}
  for _, entry in ipairs(log.kept) do
    local task, line = entry[1], entry[2]
    if wants(log.filter, task, line) then
      table.insert(lines, (task and log.prefix) and ("[" .. task .. "] " .. line) or line)
    end
  end
  log.count = #lines
  for _, task in ipairs(log.tasks) do
    local partial = log.partial[task] ~= "" and shown(log.partial[task])
    if partial and wants(log.filter, task, partial) then
      table.insert(lines, (log.prefix and ("[" .. task .. "] ") or "") .. partial)
    end
  end
  local buf = buffer_of(log)
  ui.set_lines(buf, 0, -1, lines)
  vim.b[buf].pai_log_filter = M.filter_words(log.filter)
  if quiet then
    return
  end
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    vim.api.nvim_win_set_cursor(win, { math.max(1, #lines), 0 })
  end
  if log.filter then
    ui.notify(t("log of %s: only %s (%d of %d lines)", job, M.filter_words(log.filter), log.count, #log.kept))
  else
    ui.notify(t("log of %s: every line", job))
  end
end

--- The job whose log a command acts on: the current buffer's, else the one shown last.
function M.current_job()
  local ok, job = pcall(vim.api.nvim_buf_get_var, 0, "pai_job")
  if ok and logs[job] then
    return job
  end
  return last_shown and logs[last_shown] and last_shown or nil
end

--- :PaiLogFilter [role:NAME] [task:N] [TEXT]: filter the current (or last shown) log; no words: every line.
function M.set_filter(words, job)
  job = job or M.current_job()
  if not job then
    ui.error(t("open a job's log first (:PaiLogs {job})"))
    return
  end
  local filter, problem = M.filter_of(words)
  if filter == nil then
    ui.error(problem)
    return
  end
  M.refilter(job, filter)
end

--- f in a log buffer: the filter, asked for (the current one to edit).
function M.ask_filter(job)
  local log = logs[job]
  if not log then
    return
  end
  vim.ui.input({ prompt = t("Filter the log of %s (role:NAME task:N regex): ", job), default = M.filter_words(log.filter) },
    function(answer)
      if answer then
        M.set_filter(vim.split(vim.trim(answer), "%s+", { trimempty = true }), job)
      end
    end)
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
  local argument = { job = log.job, cluster = log.cluster, offsets = M.offsets(log) }
  if next(log.have) == nil then
    argument.tail = M.TAIL_BYTES -- nothing of it here: its end first, however long it is
    log.tailed = true
  end
  client.execute("pai.job.follow", { argument }, nil,
    function(result)
      log.following = false
      append_note(log, result.message or t("could not follow the log"))
      ui.error(log.job .. ": " .. (result.message or t("could not follow the log")))
      return true
    end)
end

--- The workspace file a path in a task's log stands for: the longest end of the path that names a
--- file in one of `folders` (a job's code runs from its own folder — the code dir, a storage, the
--- job's name — so only the end is the workspace's). Nil when none does.
function M.workspace_file(path, folders)
  local parts = vim.tbl_filter(function(part)
    return part ~= "" and part ~= "."
  end, vim.split(path, "[\\/]+"))
  for from = 1, #parts do
    for _, folder in ipairs(folders) do
      local candidate = folder:gsub("[\\/]+$", "") .. "/" .. table.concat(parts, "/", from)
      if vim.fn.filereadable(candidate) == 1 then
        return candidate
      end
    end
  end
  return nil
end

--- <CR> on a traceback frame of a log line (`File "…/pkg/ops.py", line 3`): that line of the
--- workspace's file, in the window the log was opened from.
function M.open_frame()
  local text = vim.api.nvim_get_current_line()
  local column = vim.api.nvim_win_get_cursor(0)[2] + 1
  local chosen = nil
  for start, path, line, finish in text:gmatch('()File "([^"]+)", line (%d+)()') do
    if not chosen or (column >= start and column < finish) then
      chosen = { path = path, line = tonumber(line) }
    end
  end
  if not chosen then
    return
  end
  local folders = { vim.fn.getcwd() }
  local root = client.root()
  if root and root ~= folders[1] then
    table.insert(folders, root)
  end
  local file = M.workspace_file(chosen.path, folders)
  if not file then
    ui.notify(t("%s is no file of the workspace", chosen.path))
    return
  end
  if #vim.api.nvim_tabpage_list_wins(0) > 1 then
    vim.cmd("wincmd p")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  vim.api.nvim_win_set_cursor(0, { math.min(chosen.line, vim.api.nvim_buf_line_count(0)), 0 })
end

--- `<` in a log opened at its tail: EARLIER_BYTES more of each task's log, before what the buffer
--- has (each task's lines in order, before all that is shown); the cursor stays on the line it was on.
function M.earlier(job)
  local log = logs[job]
  if not log then
    return
  end
  local tasks = {}
  for _, task in ipairs(log.tasks) do
    if (log.first[task] or 0) > 0 then
      table.insert(tasks, task)
    end
  end
  if #tasks == 0 then
    ui.notify(t("the log of %s is shown from its start", job))
    return
  end
  local added = {}
  local function finish()
    local kept, shown_before = {}, 0
    for _, task in ipairs(tasks) do
      for _, line in ipairs(added[task] or {}) do
        table.insert(kept, { task, line })
        if wants(log.filter, task, line) then
          shown_before = shown_before + 1
        end
      end
    end
    vim.list_extend(kept, log.kept)
    log.kept = kept
    local buf = buffer_of(log)
    local cursors = {}
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      cursors[win] = vim.api.nvim_win_get_cursor(win)[1]
    end
    M.refilter(job, log.filter, true)
    for win, line in pairs(cursors) do
      vim.api.nvim_win_set_cursor(win, { math.min(line + shown_before, vim.api.nvim_buf_line_count(buf)), 0 })
    end
  end
  local function read(i)
    local task = tasks[i]
    if not task then
      return finish()
    end
    local first = log.first[task]
    local from = math.max(0, first - M.EARLIER_BYTES)
    client.execute("pai.job.logRead", { { job = job, cluster = log.cluster, task = task, offset = from, length = first - from } },
      function(piece)
        local pieces = vim.split(piece.text .. (log.heads[task] or ""), "\n", { plain = true })
        if pieces[#pieces] == "" then
          table.remove(pieces)
        end
        log.heads[task] = from > 0 and (table.remove(pieces, 1) or "") .. "\n" or nil
        log.first[task] = from
        added[task] = vim.tbl_map(shown, pieces)
        read(i + 1)
      end)
  end
  read(1)
end

--- A job submitted from this Neovim: its log buffer, shown without leaving the current window
--- (the server relays its log by itself).
function M.started(job, cluster)
  local log = get(job, cluster)
  last_shown = job
  log.following = true
  if M.window then
    local here = vim.api.nvim_get_current_win()
    ui.show(log.buf, M.window)
    vim.api.nvim_set_current_win(here)
  end
end

--- :PaiLogs {job}: the job's log buffer, and the part of the log it does not have yet; `filter_words`
--- (see M.filter_of), when there are any, filter it.
function M.open(job, cluster, filter_words)
  local filter, problem = nil, nil
  if filter_words and #filter_words > 0 then
    filter, problem = M.filter_of(filter_words)
    if filter == nil then
      ui.error(problem)
      return
    end
  end
  local log = get(job, cluster)
  last_shown = job
  ui.show(log.buf, M.window or "split")
  if filter ~= nil then
    M.refilter(job, filter)
  end
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
  if log.tailed and log.have[p.task] == nil and p.offset > 0 then
    -- Asked from its tail: this task's log here starts there.
    log.have[p.task], log.first[p.task], log.cut[p.task] = p.offset, p.offset, true
    if not log.said_tail then
      log.said_tail = true
      ui.notify(t("log of %s: from its last %s of each task; < reads earlier lines", log.job, ui.size(M.TAIL_BYTES)))
    end
  end
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
