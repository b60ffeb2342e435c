-- The one pai-lsp client of this Neovim: started on demand (also with no job file open, for
-- :PaiJobs or :PaiHdfs), calls the server's commands (docs/protocol.md) and hands its notifications
-- to whoever listens. Which files are job files, and which kinds of cluster there are, it asks the
-- server program (`pai-lsp --kinds`) once. Works with Neovim 0.7 (vim.lsp.start_client) and newer (vim.lsp.start).
local M = {}

M.config = {
  cmd = { "pai-lsp" },
  settings = {}, -- e.g. { pai = { cluster = { kind = "scm" } } }
}

local client_id = nil
local ready = false
local waiting = {} -- functions to run once the server has answered `initialize`
local listeners = {} -- method -> list of functions(result, ctx)
local on_start = {} -- functions run each time a new server is ready (e.g. to follow logs again)

local has_011 = vim.fn.has("nvim-0.11") == 1
local i18n = require("pai_lsp.i18n")
local t = i18n.t

-- client:method(...) in 0.11+, client.method(...) before (the dot form is deprecated there).
local function invoke(client, name, ...)
  if has_011 then
    return client[name](client, ...)
  end
  return client[name](...)
end

--- Listen to a server notification (or `$/progress`).
function M.on(method, fn)
  listeners[method] = listeners[method] or {}
  table.insert(listeners[method], fn)
end

--- Run `fn` each time a server starts (after a restart too).
function M.on_start(fn)
  table.insert(on_start, fn)
end

local function dispatch(method)
  return function(err, result, ctx, config)
    if method == "$/progress" then
      local default = vim.lsp.handlers["$/progress"] -- status-line plugins read LSP progress from here
      if default then
        default(err, result, ctx, config)
      end
    end
    for _, fn in ipairs(listeners[method] or {}) do
      local ok, problem = pcall(fn, result or {}, ctx)
      if not ok then
        vim.notify("pai: " .. tostring(problem), vim.log.levels.ERROR)
      end
    end
    return vim.NIL
  end
end

local RESTARTS = 5 -- unexpected exits in a row after which the server is no longer restarted by itself
local restarts = 0
local keep_alive = {} -- functions: does something need the server running (a log being followed)?

--- Keep the server running while `fn()` is true: it is started again if it dies.
function M.keep_alive(fn)
  table.insert(keep_alive, fn)
end

local function restart_wanted()
  for _, fn in ipairs(keep_alive) do
    if fn() then
      restarts = restarts + 1
      return restarts <= RESTARTS
    end
  end
  return false
end

-- What the server program says it knows (`pai-lsp --kinds`, the same as the `pai.kinds` command):
-- {jobFiles = {{format, patterns}...}, kinds = {{name, title, storage, jobFiles}...}}. Asked once, in
-- the background from setup(); whoever needs it first waits for the answer.
local catalogue = nil
local catalogue_job = nil
local on_catalogue = {} -- functions(catalogue) run once it has come

local function catalogue_came(found)
  catalogue = found
  local waiting_for_it = on_catalogue
  on_catalogue = {}
  for _, fn in ipairs(waiting_for_it) do
    fn(found)
  end
end

--- Start asking the server program what it knows (nothing happens when it was asked already).
function M.load_catalogue()
  if catalogue or catalogue_job then
    return
  end
  local cmd = vim.deepcopy(M.config.cmd)
  table.insert(cmd, "--kinds")
  local lines = {}
  local job = vim.fn.jobstart(cmd, {
    stdout_buffered = true,
    on_stdout = function(_, data)
      lines = data
    end,
    on_exit = function(_, code)
      catalogue_job = nil
      local ok, found = pcall(vim.fn.json_decode, table.concat(lines, "\n"))
      if code == 0 and ok and type(found) == "table" and type(found.jobFiles) == "table" then
        catalogue_came(found)
      else
        vim.notify("pai: " .. t("%s does not say which files are job files (exit %s)", table.concat(cmd, " "), code),
          vim.log.levels.ERROR)
        catalogue_came({ jobFiles = {}, kinds = {} })
      end
    end,
  })
  if job <= 0 then
    vim.notify("pai: " .. t("could not start %s", table.concat(M.config.cmd, " ")), vim.log.levels.ERROR)
    catalogue_came({ jobFiles = {}, kinds = {} })
  else
    catalogue_job = job
  end
end

--- What the server program knows, waiting for its answer if it has not come yet.
function M.catalogue()
  M.load_catalogue()
  if not catalogue and catalogue_job then
    vim.fn.jobwait({ catalogue_job }, 30000)
  end
  return catalogue or { jobFiles = {}, kinds = {} }
end

--- Run `fn(catalogue)` once the server program has said what it knows (at once if it has).
function M.with_catalogue(fn)
  if catalogue then
    fn(catalogue)
  else
    table.insert(on_catalogue, fn)
    M.load_catalogue()
  end
end

--- The file-name patterns of job files (`*.pai.json`, `*.paddle.json` …), as the server says them.
function M.job_file_patterns(found)
  local patterns = {}
  for _, format in ipairs((found or M.catalogue()).jobFiles) do
    vim.list_extend(patterns, format.patterns)
  end
  return patterns
end

--- A job file the server reads (by its name).
function M.is_job_file(path)
  local name = vim.fn.fnamemodify(path, ":t")
  for _, pattern in ipairs(M.job_file_patterns()) do
    if vim.fn.match(name, "\\C" .. vim.fn.glob2regpat(pattern)) >= 0 then
      return true
    end
  end
  return false
end

-- A restarted server knows no buffers: attach the job files again.
local function attach_configs(id)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and M.is_job_file(vim.api.nvim_buf_get_name(buf)) then
      vim.lsp.buf_attach_client(buf, id)
    end
  end
end

local function root_dir(path)
  local dir = path ~= "" and vim.fn.fnamemodify(path, ":p:h") or vim.fn.getcwd()
  local found = vim.fn.finddir(".vscode", dir .. ";")
  if found ~= "" then
    return vim.fn.fnamemodify(found, ":p:h:h")
  end
  return dir
end

local function server_config(path)
  local settings = vim.deepcopy(M.config.settings or {})
  if i18n.locale() and not (settings.pai and settings.pai.locale) then
    settings.pai = settings.pai or {}
    settings.pai.locale = i18n.locale()
  end
  local init = vim.deepcopy(settings)
  init.client = { showsMessages = true } -- this client shows failed commands and job ends itself
  local handlers = {}
  for _, method in ipairs({ "pai/jobLog", "pai/jobLogEnd", "pai/jobStatus", "pai/jobEnded", "$/progress" }) do
    handlers[method] = dispatch(method)
  end
  return {
    name = "pai-lsp",
    cmd = M.config.cmd,
    root_dir = root_dir(path or ""),
    init_options = init,
    settings = settings,
    handlers = handlers,
    on_init = function()
      -- Neovim lists the client (get_client_by_id) only once on_init has returned.
      vim.schedule(function()
        ready = true
        local id = client_id
        vim.defer_fn(function()
          if client_id == id then
            restarts = 0 -- it has run a while: count unexpected exits afresh
          end
        end, 60000)
        attach_configs(id)
        local queued = waiting
        waiting = {}
        for _, fn in ipairs(on_start) do
          pcall(fn)
        end
        for _, fn in ipairs(queued) do
          fn()
        end
      end)
    end,
    on_exit = function(code, signal, id)
      if id ~= client_id then
        return
      end
      client_id, ready = nil, false
      vim.schedule(function()
        if M.stopping then
          M.stopping = false
          return
        end
        if restart_wanted() then
          vim.notify("pai: " .. t("the language server stopped (exit %s, signal %s); starting it again", code, signal),
            vim.log.levels.WARN)
          vim.defer_fn(function() M.start() end, 200)
        elseif code ~= 0 then
          vim.notify("pai: " .. t("the language server stopped (exit %s); the next command starts it again", code),
            vim.log.levels.WARN)
        end
      end)
    end,
  }
end

--- The workspace folder of the running server (nil when none runs).
function M.root()
  local client = client_id and vim.lsp.get_client_by_id(client_id)
  return client and client.config and client.config.root_dir or nil
end

--- The client's id, starting the server if none runs.
function M.start(path)
  if client_id and vim.lsp.get_client_by_id(client_id) then
    return client_id
  end
  ready, waiting = false, {}
  local config = server_config(path)
  if has_011 then
    client_id = vim.lsp.start(config, { attach = false })
  else
    client_id = vim.lsp.start_client(config)
  end
  if not client_id then
    vim.notify("pai: " .. t("could not start %s", table.concat(M.config.cmd, " ")), vim.log.levels.ERROR)
  end
  return client_id
end

--- Start the server (if needed) for a job-config buffer and attach it.
function M.attach(bufnr)
  local id = M.start(vim.api.nvim_buf_get_name(bufnr))
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function with_client(fn)
  if not M.start() then
    return
  end
  if ready then
    fn(vim.lsp.get_client_by_id(client_id))
  else
    table.insert(waiting, function()
      fn(vim.lsp.get_client_by_id(client_id))
    end)
  end
end

--- A command's failure, whatever form it came in: its `{ok = false, kind, message}` answer (the
--- message in the user's language), or an error the server answered the request with (arguments of
--- the wrong shape: kind `invalid`). The one error table callers see.
function M.failure(command, err, result)
  if err then
    return { ok = false, message = err.message or tostring(err), kind = "invalid" }
  elseif type(result) ~= "table" then
    return { ok = false, message = command .. ": no answer", kind = "server" }
  end
  return result
end

--- Run the server command `command` with `arguments` (a list holding its one argument, an object:
--- docs/protocol.md); `callback(result)` gets the result when it is `{ok = true, ...}`. A failure is one
--- error notification (the server's message), unless `on_error(failure)` is given and returns true.
function M.execute(command, arguments, callback, on_error)
  with_client(function(client)
    invoke(client, "request", "workspace/executeCommand", { command = command, arguments = arguments },
      function(err, result)
        result = M.failure(command, err, result)
        if result.ok then
          if callback then
            callback(result)
          end
        elseif not (on_error and on_error(result)) then
          vim.notify("pai: " .. (result.message or command), vim.log.levels.ERROR)
        end
      end)
  end)
end

--- The same, waiting for the answer (for command-line completion): the result, or nil.
function M.execute_sync(command, arguments, timeout_ms)
  if not (client_id and ready) then
    return nil
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local answer = client and invoke(client, "request_sync", "workspace/executeCommand",
    { command = command, arguments = arguments }, timeout_ms or 2000)
  local result = answer and answer.result
  return type(result) == "table" and result.ok and result or nil
end

--- Send a notification to the server (if it runs).
function M.notify(method, params)
  local client = client_id and ready and vim.lsp.get_client_by_id(client_id)
  if client then
    invoke(client, "notify", method, params)
  end
end

--- Stop the server (the daemon and its jobs go on).
function M.stop()
  local client = client_id and vim.lsp.get_client_by_id(client_id)
  if client then
    M.stopping = true
    invoke(client, "stop")
  end
end

return M
