-- :PaiJobs [cluster]: the user's jobs (newest first) in a buffer kept current by the states the
-- server pushes (`pai/jobStatus`), with keys for a job's tasks, log, stop, outputs and config.
local client = require("pai_lsp.client")
local logs = require("pai_lsp.logs")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local PAGE = 50
local TICK_MS = 5000
local WAIT_ASK_MS = 60000
local COLUMNS = { 40, 10, 16 } -- name, state, started (then duration)
local TASK_COLUMNS = { 16, 10, 15, 5 } -- task, state, IP, exit code (then ports)
local views = {} -- buffer -> view {cluster, resolved, user, jobs, total, limit, entries}

local function header(view)
  return {
    t("Jobs on %s as %s: %d of %d", view.resolved or view.cluster or "?", view.user or "?", #view.jobs,
      view.total or #view.jobs) .. "   " .. t("(? help)"),
    ui.row(COLUMNS, { t("NAME"), t("STATE"), t("STARTED"), t("DURATION") }),
  }
end

local render

-- Why a waiting job waits (`pai.job.waiting`, in the editor's language): asked when its row is drawn,
-- again at most once a minute while it waits; shown on the line below its row.
local function ask_waiting(buf, view, job)
  view.waiting = view.waiting or {}
  local known = view.waiting[job.name]
  local now = (vim.uv or vim.loop).now()
  if known and now - known.asked < WAIT_ASK_MS then
    return
  end
  view.waiting[job.name] = { reason = known and known.reason, asked = now }
  client.execute("pai.job.waiting", { { job = job.name, cluster = view.cluster } }, function(result)
    view.waiting[job.name] = { reason = result.state == "WAITING" and ui.value(result.reason) or nil, asked = now }
    render(buf)
  end, function()
    return true -- a cluster that cannot tell, or is unreachable: the row says nothing more
  end)
end

render = function(buf)
  local view = views[buf]
  if not view or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local lines = header(view)
  view.entries = {}
  for _, job in ipairs(view.jobs) do
    table.insert(lines, ui.row(COLUMNS, { job.name, job.state, ui.time(ui.value(job.created)),
      ui.duration(ui.value(job.created), ui.value(job.completed)) }))
    view.entries[#lines] = job
    if job.state == "WAITING" then
      local known = (view.waiting or {})[job.name]
      if known and known.reason then
        table.insert(lines, "  ↳ " .. known.reason)
      end
      ask_waiting(buf, view, job)
    end
  end
  if (view.total or 0) > #view.jobs then
    table.insert(lines, t("… %d more: + shows them", view.total - #view.jobs))
  end
  local cursor = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      cursor[win] = vim.api.nvim_win_get_cursor(win)
    end
  end
  ui.set_lines(buf, 0, -1, lines)
  for win, pos in pairs(cursor) do
    pcall(vim.api.nvim_win_set_cursor, win, { math.min(pos[1], #lines), pos[2] })
  end
end

local function refresh(buf)
  local view = views[buf]
  if not view then
    return
  end
  client.execute("pai.jobs.list", { { cluster = view.cluster, offset = 0, limit = view.limit } }, function(result)
    view.resolved, view.user, view.total = result.cluster, result.user, result.total
    view.jobs = result.jobs or {}
    render(buf)
  end)
end

-- Refresh soon, once for a burst of changes.
local function refresh_soon(buf)
  local view = views[buf]
  if view and not view.pending then
    view.pending = true
    vim.defer_fn(function()
      view.pending = false
      if vim.api.nvim_buf_is_valid(buf) then
        refresh(buf)
      end
    end, 200)
  end
end

local function current(buf)
  return ui.current(views[buf], t("no job on this line"))
end

local function ref(buf, job)
  local view = views[buf]
  return { job = job.name, cluster = view.resolved or view.cluster }
end

local function ports(task)
  local out = {}
  for label, list in pairs(ui.value(task.ports) or {}) do
    table.insert(out, label .. "=" .. tostring(list))
  end
  table.sort(out)
  return table.concat(out, " ")
end

local function percent(value)
  value = ui.value(value)
  return value and ("%d%%"):format(math.floor(value + 0.5)) or "-"
end

local function bytes(value)
  local units, n, unit = { "B", "KiB", "MiB", "GiB", "TiB" }, value, 1
  while n >= 1024 and unit < #units do
    n, unit = n / 1024, unit + 1
  end
  return unit == 1 and ("%d B"):format(n) or ("%.1f %s"):format(n, units[unit])
end

--- One task's figures in a line: `CPU 98% · mem 1.2 GiB/4.0 GiB (30%) · GPU0 87% mem 40%`.
function M.figures(f)
  local parts = { t("CPU %s", percent(f.cpuPercent)) }
  local used, limit = ui.value(f.memoryBytes), ui.value(f.memoryLimitBytes)
  if used then
    table.insert(parts, t("mem %s", limit and ("%s/%s (%s)"):format(bytes(used), bytes(limit), percent(f.memoryPercent))
      or bytes(used)))
  end
  for _, g in ipairs(f.gpus or {}) do
    table.insert(parts, t("GPU%s %s mem %s", g.minor, percent(g.utilization), percent(g.memoryPercent)))
  end
  return table.concat(parts, " · ")
end

--- <CR>: the job's state, its tasks and their ports (and SSH and resources for running tasks).
function M.details(buf)
  local job = current(buf)
  if not job then
    return
  end
  local r = ref(buf, job)
  client.execute("pai.job.status", { r }, function(status)
    local function label(name)
      return ui.row({ 9 }, { t(name) .. ":", "" })
    end
    local lines = {
      label("Job") .. status.name,
      label("Cluster") .. tostring(ui.value(status.cluster) or r.cluster or ""),
      label("State") .. status.state .. (ui.value(status.exitCode) and t("  (exit code %s)", status.exitCode) or ""),
      label("Started") .. ui.time(ui.value(status.created))
        .. t("   ran %s", ui.duration(ui.value(status.created), ui.value(status.completed))),
    }
    if ui.value(status.webPortal) then
      table.insert(lines, label("Portal") .. status.webPortal)
    end
    if ui.value(status.diagnostics) and status.diagnostics ~= "" then
      table.insert(lines, label("Note") .. status.diagnostics:gsub("\n", " "))
    end
    table.insert(lines, "")
    table.insert(lines, ui.row(TASK_COLUMNS, { t("TASK"), t("STATE"), "IP", t("EXIT"), t("PORTS") }))
    for _, task in ipairs(status.tasks or {}) do
      table.insert(lines, ui.row(TASK_COLUMNS, { task.role .. ":" .. task.index, task.state, ui.value(task.ip) or "",
        tostring(ui.value(task.exitCode) or ""), ports(task) }))
    end
    local name = "pai://job/" .. status.name
    local shown = ui.show_text(name, lines)
    if status.state == "RUNNING" then
      local idle = ui.value(status.idleGpu)
      if idle then
        ui.set_lines(shown, -1, -1, { "", t("Its GPUs are idle: %s%% on average over the last %s minutes (below %s%%).",
          tostring(idle.average), tostring(idle.minutes), tostring(idle.threshold)) })
      end
      -- Each task's GPUs, CPU and memory now, where the cluster has metrics (said in one line where not).
      client.execute("pai.job.metrics", { r }, function(m)
        local more = { "", t("Resources of running tasks:") }
        for _, f in ipairs(m.tasks or {}) do
          table.insert(more, ("  %-14s %s"):format(f.role .. ":" .. f.index, M.figures(f)))
        end
        if #(m.tasks or {}) == 0 then
          table.insert(more, "  " .. t("none reported yet"))
        end
        ui.set_lines(shown, -1, -1, more)
      end, function(err)
        ui.set_lines(shown, -1, -1, { "", t("Resources of running tasks:") .. " " .. tostring(err and err.message or err) })
        return true
      end)
      client.execute("pai.job.ssh", { r }, function(ssh)
        local more = { "", t("SSH and ports of running tasks:") }
        for _, t in ipairs(ssh.tasks or {}) do
          table.insert(more, ("  %-14s %s"):format(t.task, ui.value(t.command) or ""))
          for label, urls in pairs(ui.value(t.urls) or {}) do
            table.insert(more, ("  %-14s %s: %s"):format("", label, table.concat(urls, " ")))
          end
        end
        ui.set_lines(shown, -1, -1, more)
      end, function() return true end)
    end
  end)
end

--- s: stop the job (after a confirmation).
function M.stop(buf)
  local job = current(buf)
  if job then
    ui.confirm(t("Stop job %s?", job.name), function()
      client.execute("pai.job.stop", { ref(buf, job) }, function()
        ui.notify(t("stopping job %s", job.name))
        refresh_soon(buf)
      end)
    end)
  end
end

--- o: download the job's outputDir into a folder the user names.
function M.outputs(buf)
  local job = current(buf)
  if not job then
    return
  end
  local r = ref(buf, job)
  vim.ui.input({ prompt = t("Download outputs of %s into: ", job.name),
    default = vim.fn.getcwd() .. "/outputs", completion = "dir" }, function(dest)
    if not dest or dest == "" then
      return
    end
    dest = vim.fn.fnamemodify(vim.fn.expand(dest), ":p")
    local args = { job = job.name, dest = dest, cluster = r.cluster, workDoneToken = require("pai_lsp.submit").token("outputs") }
    client.execute("pai.jobOutputs", { args }, function(result)
      ui.notify(t("outputs of %s downloaded to %s", job.name, result.path))
    end)
  end)
end

--- c: the job's config as the cluster has it, read-only.
function M.config(buf)
  local job = current(buf)
  if not job then
    return
  end
  client.execute("pai.job.config", { ref(buf, job) }, function(result)
    local text = ui.value(result.text) or vim.fn.json_encode(result.config)
    ui.show_text("pai://job/" .. job.name .. ".pai.json", ui.lines(text), "json")
  end)
end

--- C / d / r: the job's submitted code, compared with the workspace, or run again (records.lua).
function M.record(buf, action)
  local job = current(buf)
  if job then
    require("pai_lsp.records")[action](job.name, ref(buf, job).cluster, function() refresh_soon(buf) end)
  end
end

--- :PaiJobs [cluster]
function M.open(cluster)
  if cluster == "" then
    cluster = nil
  end
  local buf, created = ui.listing("pai://jobs" .. (cluster and ("/" .. cluster) or ""), "paijobs", views,
    { cluster = cluster, jobs = {}, limit = PAGE }, t(":PaiJobs keys"), function(buf)
      return {
        { "<CR>", function() M.details(buf) end, t("tasks, ports and state of the job") },
        { "l", function()
          local job = current(buf)
          if job then
            logs.open(job.name, ref(buf, job).cluster)
          end
        end, t("the job's log (live while it runs)") },
        { "s", function() M.stop(buf) end, t("stop the job (asks first)") },
        { "o", function() M.outputs(buf) end, t("download the job's outputs") },
        { "c", function() M.config(buf) end, t("the job's config as submitted") },
        { "C", function() M.record(buf, "code") end, t("the code the job was submitted with") },
        { "d", function() M.record(buf, "compare") end, t("compare the job's code with the workspace (diff split)") },
        { "r", function() M.record(buf, "rerun") end, t("rerun the job: the same code and config, a new name") },
        { "a", function()
          local job = current(buf)
          if job then
            require("pai_lsp.dap").attach(job.name, ref(buf, job).cluster)
          end
        end, t("attach the debugger to its tasks that wait for one (nvim-dap)") },
        { "R", function() refresh(buf) end, t("refresh the list") },
        { "+", function()
          views[buf].limit = views[buf].limit + PAGE
          refresh(buf)
        end, t("show more jobs") },
      }
    end)
  ui.show(buf, "current")
  if created then
    -- Durations of running jobs go on while the list is shown.
    local timer = (vim.uv or vim.loop).new_timer()
    timer:start(TICK_MS, TICK_MS, vim.schedule_wrap(function()
      local view = views[buf]
      if view and #vim.fn.win_findbuf(buf) > 0 then
        for _, job in ipairs(view.jobs) do
          if not ui.FINAL[job.state] then
            return render(buf)
          end
        end
      end
    end))
    views[buf].on_wipe = function()
      timer:stop()
      timer:close()
    end
    ui.set_lines(buf, 0, -1, { t("Listing jobs…") })
  end
  refresh(buf)
end

--- Job names listed (for completion).
function M.names()
  local names = {}
  for _, view in pairs(views) do
    for _, job in ipairs(view.jobs) do
      table.insert(names, job.name)
    end
  end
  return names
end

client.on("pai/jobStatus", function(p)
  for buf, view in pairs(views) do
    local cluster = ui.value(p.cluster)
    if not cluster or not view.resolved or cluster == view.resolved then
      local known = false
      for _, job in ipairs(view.jobs) do
        if job.name == p.job then
          known = true
          job.state = ui.value(p.state) or job.state
        end
      end
      if known and not ui.FINAL[p.state] then
        render(buf)
      else
        refresh_soon(buf) -- a new job, or an end (its completion time and duration)
      end
    end
  end
end)

return M
