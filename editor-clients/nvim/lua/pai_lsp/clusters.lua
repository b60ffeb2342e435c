-- :PaiClusters: the cluster profiles (`local`, the embedded cluster, first); add one with prompts
-- (the password is read with inputsecret() and kept by the daemon in the OS keyring, never in a
-- file of ours), make one the default, log in again, remove one.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")

local M = {}

local views = {} -- buffer -> {entries}
local names = {} -- the names last listed (for completion)

local function login_state(c)
  if c["local"] then
    return c.running and "running" or "stopped"
  end
  return c.loggedIn and "logged in" or "no login"
end

local function render(buf, result)
  local lines = {
    "Cluster profiles   (? help)",
    ("  %-16s %-12s %-8s %-10s %s"):format("NAME", "USER", "KIND", "LOGIN", "REST"),
  }
  local entries = {}
  names = {}
  for _, c in ipairs(result.clusters or {}) do
    table.insert(lines, ("%s %-16s %-12s %-8s %-10s %s"):format(c.default and "*" or " ", c.name, ui.value(c.user) or "",
      ui.value(c.kind) or "", login_state(c), c["local"] and "(embedded, on this machine)" or ui.value(c.rest) or ""))
    entries[#lines] = c
    table.insert(names, c.name)
  end
  views[buf].entries = entries
  ui.set_lines(buf, 0, -1, lines)
end

function M.refresh(buf)
  client.execute("pai.clusters.list", {}, function(result)
    if views[buf] and vim.api.nvim_buf_is_valid(buf) then
      render(buf, result)
    end
  end)
end

--- Cluster names for command-line completion (asks the server when it runs).
function M.names()
  local result = client.execute_sync("pai.clusters.list", {})
  if result then
    names = {}
    for _, c in ipairs(result.clusters or {}) do
      table.insert(names, c.name)
    end
  end
  return names
end

local function current(buf)
  local c = ui.current(views[buf] and views[buf].entries)
  if not c then
    ui.notify("no cluster on this line")
  end
  return c
end

-- Ask each of `questions` ({key, prompt, default}) in turn, then call `done(answers)`; an empty
-- answer (or <Esc>) stops.
local function ask(questions, answers, done)
  local q = table.remove(questions, 1)
  if not q then
    return done(answers)
  end
  vim.ui.input({ prompt = q[2], default = q[3] }, function(value)
    if value and value ~= "" then
      answers[q[1]] = value
      ask(questions, answers, done)
    end
  end)
end

--- a: add a profile (or replace one of the same name).
function M.add(buf)
  ask({
    { "name", "Profile name: " },
    { "rest", "REST server URL: ", "http://" },
    { "webhdfs", "WebHDFS URL: ", "http://" },
    { "user", "User name: ", vim.env.USER or "" },
  }, {}, function(a)
    vim.ui.select({ "openpai", "scm" }, { prompt = "Cluster kind:" }, function(kind)
      if not kind then
        return
      end
      a.kind = kind
      local password = vim.fn.inputsecret("Password (empty: log in later): ")
      if password ~= "" then
        a.password = password
      end
      client.execute("pai.clusters.add", { a }, function(result)
        ui.notify(("added cluster %s%s"):format(result.name, result.loggedIn and ", logged in" or ""))
        M.refresh(buf)
      end, function(result)
        ui.error(("cluster %s: %s"):format(a.name, result.message))
        M.refresh(buf) -- the profile may be kept without its refused password
        return true
      end)
    end)
  end)
end

function M.set_default(buf)
  local c = current(buf)
  if c then
    client.execute("pai.clusters.setDefault", { { name = c.name } }, function(result)
      ui.notify("default cluster: " .. result.default)
      M.refresh(buf)
    end)
  end
end

function M.login(buf)
  local c = current(buf)
  if c then
    local password = vim.fn.inputsecret(("Password of %s on %s: "):format(ui.value(c.user) or "", c.name))
    if password ~= "" then
      client.execute("pai.clusters.login", { { name = c.name, password = password } }, function()
        ui.notify("logged in to " .. c.name)
        M.refresh(buf)
      end)
    end
  end
end

function M.remove(buf)
  local c = current(buf)
  if c then
    ui.confirm(("Remove cluster profile %s (and its password)?"):format(c.name), function()
      client.execute("pai.clusters.remove", { { name = c.name } }, function()
        ui.notify("removed cluster " .. c.name)
        M.refresh(buf)
      end)
    end)
  end
end

--- :PaiClusters
function M.open()
  local buf, created = ui.scratch("pai://clusters", "paiclusters")
  if created then
    views[buf] = {}
    vim.api.nvim_create_autocmd("BufWipeout", { buffer = buf, once = true, callback = function() views[buf] = nil end })
    ui.keymaps(buf, ":PaiClusters keys", {
      { "a", function() M.add(buf) end, "add a cluster profile (asks for its URLs, user and password)" },
      { "d", function() M.set_default(buf) end, "make it the default cluster" },
      { "L", function() M.login(buf) end, "log in again (asks for the password)" },
      { "D", function() M.remove(buf) end, "remove the profile (asks first)" },
      { "R", function() M.refresh(buf) end, "refresh" },
    })
    ui.set_lines(buf, 0, -1, { "Listing clusters…" })
  end
  ui.show(buf, "current")
  M.refresh(buf)
end

return M
