-- :PaiClusters: the cluster profiles (`local`, the embedded cluster, first); add one with prompts
-- (the password is read with inputsecret() and kept by the daemon in the OS keyring, never in a
-- file of ours), make one the default, log in again, remove one.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local COLUMNS = { 16, 12, 8, 10 } -- name, user, kind, login (then REST)
local views = {} -- buffer -> {entries}
local names = {} -- the names last listed (for completion)

local function login_state(c)
  if c["local"] then
    return c.running and t("running") or t("stopped")
  end
  return c.loggedIn and t("logged in") or t("no login")
end

local function render(buf, result)
  local lines = {
    t("Cluster profiles") .. "   " .. t("(? help)"),
    "  " .. ui.row(COLUMNS, { t("NAME"), t("USER"), t("KIND"), t("LOGIN"), "REST" }),
  }
  local entries = {}
  names = {}
  for _, c in ipairs(result.clusters or {}) do
    table.insert(lines, (c.default and "* " or "  ") .. ui.row(COLUMNS, { c.name, ui.value(c.user) or "",
      ui.value(c.kind) or "", login_state(c), c["local"] and t("(embedded, on this machine)") or ui.value(c.rest) or "" }))
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
  return ui.current(views[buf], t("no cluster on this line"))
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

-- The kinds of cluster whose profile is what `a` asks for (a REST and a WebHDFS URL), as the server
-- names them (its `pai.kinds`): openpai, scm …
local function kinds_asked_for()
  local names = {}
  for _, kind in ipairs(client.catalogue().kinds) do
    if kind.storage == "WebHDFS" then
      table.insert(names, kind.name)
    end
  end
  return names
end

--- a: add a profile (or replace one of the same name).
function M.add(buf)
  ask({
    { "name", t("Profile name: ") },
    { "rest", t("REST server URL: "), "http://" },
    { "webhdfs", t("WebHDFS URL: "), "http://" },
    { "user", t("User name: "), vim.env.USER or "" },
  }, {}, function(a)
    vim.ui.select(kinds_asked_for(), { prompt = t("Cluster kind:") }, function(kind)
      if not kind then
        return
      end
      a.kind = kind
      local password = vim.fn.inputsecret("Password (empty: log in later): ")
      if password ~= "" then
        a.password = password
      end
      client.execute("pai.clusters.add", { a }, function(result)
        ui.notify(t("added cluster %s%s", result.name, result.loggedIn and t(", logged in") or ""))
        M.refresh(buf)
      end, function(result)
        ui.error(t("cluster %s: %s", a.name, result.message))
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
      ui.notify(t("default cluster: %s", result.default))
      M.refresh(buf)
    end)
  end
end

function M.login(buf)
  local c = current(buf)
  if c then
    local password = vim.fn.inputsecret(t("Password of %s on %s: ", ui.value(c.user) or "", c.name))
    if password ~= "" then
      client.execute("pai.clusters.login", { { name = c.name, password = password } }, function()
        ui.notify(t("logged in to %s", c.name))
        M.refresh(buf)
      end)
    end
  end
end

function M.remove(buf)
  local c = current(buf)
  if c then
    ui.confirm(t("Remove cluster profile %s (and its password)?", c.name), function()
      client.execute("pai.clusters.remove", { { name = c.name } }, function()
        ui.notify(t("removed cluster %s", c.name))
        M.refresh(buf)
      end)
    end)
  end
end

--- :PaiClusters
function M.open()
  local buf, created = ui.listing("pai://clusters", "paiclusters", views, {}, t(":PaiClusters keys"), function(buf)
    return {
      { "a", function() M.add(buf) end, t("add a cluster profile (asks for its URLs, user and password)") },
      { "d", function() M.set_default(buf) end, t("make it the default cluster") },
      { "L", function() M.login(buf) end, t("log in again (asks for the password)") },
      { "D", function() M.remove(buf) end, t("remove the profile (asks first)") },
      { "R", function() M.refresh(buf) end, t("refresh") },
    }
  end)
  if created then
    ui.set_lines(buf, 0, -1, { t("Listing clusters…") })
  end
  ui.show(buf, "current")
  M.refresh(buf)
end

return M
