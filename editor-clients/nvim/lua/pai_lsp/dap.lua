-- Debug Job with nvim-dap: the debug adapter and the attach configurations nvim-dap takes, built
-- from the language server's `pai.debugTargets` (where each debugged task's debugpy listens, and how
-- its files map to the workspace's). A task started under `debugpy --listen` runs debugpy's own
-- adapter on that port, so an attach with `connect` is an adapter of type "server" there (directly,
-- or through the SSH tunnel the daemon opened); anything else (a launch here) runs
-- `python -m debugpy.adapter` with the Python that runs pai-lsp, which has debugpy installed.
-- Without nvim-dap, each target is said in one line (host:port), for any other debugger.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

M.TYPE = "pai" -- the debug type: `dap.adapters.pai`, `type = "pai"` in a configuration
M.WAIT = 60 -- seconds one `pai.debugTargets` waits for a task to listen
M.ROUNDS = 30 -- times it is asked again while tasks still wait (a job that waits for resources)

local attaching = {} -- job -> true while its tasks are attached to as they listen

local function is_python(name)
  return name:match("^python[%d.]*$") ~= nil or name:match("^python[%d.]*%.exe$") ~= nil
end

local function executable(path)
  return path and path ~= "" and vim.fn.executable(path) == 1
end

--- The Python that runs pai-lsp (so debugpy, installed with it, is there): `setup({ dap = { python =
--- ... } })` when given; the server command itself when it is a Python (`python3 -m pai_lsp`); else
--- the interpreter its script names (pip's `#!/path/python` line, `#!/usr/bin/env python3`, the
--- `'''exec' "/path/python"` of pip's sh trampoline for long paths), or the `python` beside it. Nil
--- when none of that names one.
function M.python()
  local configured = client.config.dap and client.config.dap.python
  if configured then
    return configured
  end
  local program = (client.config.cmd or {})[1]
  if not program then
    return nil
  end
  local full = vim.fn.exepath(program)
  if full == "" then
    return nil
  end
  if is_python(vim.fn.fnamemodify(full, ":t")) then
    return full
  end
  local ok, head = pcall(vim.fn.readfile, full, "", 4)
  head = ok and head or {}
  local interpreter, argument = (head[1] or ""):match("^#!%s*(%S+)%s*(%S*)")
  if interpreter and not interpreter:match("/b?a?sh$") then
    if vim.fn.fnamemodify(interpreter, ":t") == "env" and argument ~= "" then
      local found = vim.fn.exepath(argument)
      return found ~= "" and found or nil
    end
    return executable(interpreter) and interpreter or nil
  end
  for _, line in ipairs(head) do
    local named = line:match([[^'''exec' "([^"]+)"]]) or line:match([[^'''exec' (%S+)]])
    if executable(named) then
      return named
    end
  end
  local beside = vim.fn.fnamemodify(full, ":h") .. (vim.fn.has("win32") == 1 and "/python.exe" or "/python")
  return executable(beside) and beside or nil
end

--- The adapter that runs debugpy's own (for a launch, or an attach by `listen` / `processId`):
--- `{type = "executable", command = <pai-lsp's Python>, args = {"-m", "debugpy.adapter"}}`; nil when
--- no Python is found.
function M.executable()
  local python = M.python()
  if not python then
    return nil
  end
  return { type = "executable", command = python, args = { "-m", "debugpy.adapter" } }
end

--- The adapter to register as `dap.adapters.pai` (nvim-dap calls it with each configuration): an
--- attach with `connect` speaks to the task's debugpy where it listens; anything else runs
--- M.executable().
function M.adapter(callback, config)
  local connect = config and config.connect
  if config and config.request == "attach" and connect then
    callback({ type = "server", host = connect.host or "127.0.0.1", port = tonumber(connect.port) })
    return
  end
  local adapter = M.executable()
  if not adapter then
    ui.error(t("no Python was found to run the debugger (debugpy): set setup({ dap = { python = ... } })"))
    return
  end
  callback(adapter)
end

--- The nvim-dap attach configuration of one debug target (a task's debugpy): named "<job> <task>" (and its
--- worker, where the task starts several: torchrun).
function M.configuration(target)
  return {
    type = M.TYPE,
    request = "attach",
    name = target.job .. " " .. target.task .. (target.worker and (" worker " .. target.worker) or ""),
    connect = { host = target.host, port = target.port },
    pathMappings = target.pathMappings or {},
    justMyCode = true,
  }
end

--- `pai.debugTargets`' answer as nvim-dap attach configurations, one per task that listens now.
function M.configurations(result)
  local configurations = {}
  for _, target in ipairs(result.targets or {}) do
    if target.state == "listening" then
      table.insert(configurations, M.configuration(target))
    end
  end
  return configurations
end

--- nvim-dap, when installed (its adapter `pai` registered), else nil.
function M.dap()
  local ok, dap = pcall(require, "dap")
  if not ok or type(dap) ~= "table" then
    return nil
  end
  dap.adapters = dap.adapters or {}
  if dap.adapters[M.TYPE] == nil then
    dap.adapters[M.TYPE] = M.adapter
  end
  return dap
end

--- Attach to one target: nvim-dap's session, or the line that says where to attach.
function M.start(target)
  local dap = M.dap()
  if dap then
    local ok, problem = pcall(dap.run, M.configuration(target))
    if not ok then
      ui.error(target.job .. " " .. target.task .. ": " .. tostring(problem))
    end
    return
  end
  local mappings = {}
  for _, m in ipairs(target.pathMappings or {}) do
    table.insert(mappings, m.localRoot .. " → " .. m.remoteRoot)
  end
  ui.notify(t("%s %s: debugpy listens at %s:%s; attach a debugger there (nvim-dap does it from Neovim) with the path mappings %s",
    target.job, target.task, target.host, target.port, #mappings > 0 and table.concat(mappings, ", ") or "-"))
end

--- Attach to every debugged task of `job` as it starts listening (one session each): asks the server
--- for the targets, again while some still wait (each answer comes when one more listens, or after
--- M.WAIT seconds); when the job has ended, what the daemon opened to reach it is closed.
function M.attach(job, cluster)
  if not job or job == "" then
    ui.error(t("which job? :PaiDebugAttach {job}"))
    return
  end
  if attaching[job] then
    ui.notify(t("already attaching to the tasks of %s as they listen", job))
    return
  end
  attaching[job] = true
  local attached, count, said = {}, 0, nil
  local function done()
    attaching[job] = nil
  end
  local function ask(round)
    client.execute("pai.debugTargets", { { job = job, cluster = cluster, wait = M.WAIT, known = count } }, function(result)
      local waiting = 0
      for _, target in ipairs(result.targets or {}) do
        if target.state == "listening" and not attached[target.task] then
          attached[target.task] = true
          count = count + 1
          if ui.value(target.postMortem) then
            ui.notify(t("%s %s stopped at %s: attaching", target.job, target.task, target.postMortem), vim.log.levels.WARN)
          end
          M.start(target)
        elseif target.state == "waiting" then
          waiting = waiting + 1
        end
      end
      local message = ui.value(result.message)
      if message and message ~= said and count == 0 then
        said = message
        ui.notify(job .. ": " .. message)
      end
      if ui.FINAL[result.state] then
        done()
        client.execute("pai.debugEnd", { { job = job, cluster = cluster } }, nil, function() return true end)
        if count == 0 and not message then
          ui.notify(t("no task of %s listens for a debugger", job), vim.log.levels.WARN)
        end
      elseif round < M.ROUNDS and (waiting > 0 or count > 0 or #(result.targets or {}) == 0) then
        ask(round + 1)
      else
        done()
      end
    end, function()
      done()
    end)
  end
  ask(1)
end

--- :PaiDebugJob [tasks] [--post-mortem MINUTES] [--via direct|ssh] [--cluster NAME]: submit the job
--- file in the current buffer (to the local cluster unless --cluster) with the chosen tasks (default:
--- the first instance of the first role; "all", a role, "role:index") waiting for a debugger, open
--- its log, and attach to each as it listens.
function M.debug_job(words, bufnr)
  local argument = {}
  local i = 1
  while i <= #words do
    local word, value = words[i], words[i + 1]
    if word == "--post-mortem" then
      argument.postMortemMinutes = tonumber(value or "")
      if not argument.postMortemMinutes then
        ui.error(t("--post-mortem needs the minutes a failed task waits for a debugger"))
        return
      end
      i = i + 1
    elseif word == "--via" or word == "--cluster" then
      if not value then
        ui.error(t("%s needs a value (%s)", word, word == "--via" and "direct, ssh" or t("a cluster profile")))
        return
      end
      argument[word:sub(3)] = value
      i = i + 1
    else
      argument.tasks = word
    end
    i = i + 1
  end
  local submit = require("pai_lsp.submit")
  local path, uri = submit.config(bufnr or 0, t("open a job file (%s) to debug it", submit.job_files()))
  if not path then
    return
  end
  argument.uri = uri
  argument.workDoneToken = submit.token("debug")
  client.execute("pai.debugJob", { argument }, function(result)
    ui.notify(t("job %s submitted to %s: %s wait for a debugger", result.job, result.cluster, table.concat(result.tasks or {}, ", ")))
    require("pai_lsp.logs").started(result.job, result.cluster)
    M.attach(result.job, result.cluster)
  end)
end

-- The server's "Debug Job" code lens (vim.lsp.codelens.run()) does what :PaiDebugJob does, so that
-- nvim-dap attaches too: the lens's command runs here, not only on the server.
vim.lsp.commands["pai.debugJob"] = function(_, ctx)
  M.debug_job({}, ctx and ctx.bufnr)
end

return M
