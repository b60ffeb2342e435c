-- :PaiClusters: the cluster profiles (`local`, the embedded cluster, first); add one with prompts
-- (the password is read with inputsecret() and kept by the daemon in the OS keyring, never in a
-- file of ours), make one the default, log in again, remove one. <CR> on a cluster opens it: its
-- virtual clusters (`pai.vc.list`) with free / total GPUs, CPUs and memory and their queues, then
-- its nodes' free GPUs, under its row.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local COLUMNS = { 16, 12, 8, 10 } -- name, user, kind, login (then REST)
local views = {} -- buffer -> {entries, clusters, opened (cluster name -> the lines under its row)}
local names = {} -- the names last listed (for completion)
local BAR = 10 -- cells of a usage bar

local function login_state(c)
  if c["local"] then
    return c.running and t("running") or t("stopped")
  end
  return c.loggedIn and t("logged in") or t("no login")
end

local function current(buf)
  return ui.current(views[buf], t("no cluster on this line"))
end

--- A usage bar of BAR cells: how much of `total` is used (empty when there is nothing).
function M.bar(used, total)
  if not total or total <= 0 then
    return string.rep(" ", BAR)
  end
  local full = math.floor(BAR * math.min(used, total) / total + 0.5)
  return string.rep("█", full) .. string.rep("░", BAR - full)
end

-- The lines under an opened cluster (`pai.vc.list`'s answer): its virtual clusters, then its nodes.
local function capacity_lines(shown)
  local width = 0
  for _, vc in ipairs(shown.vcs or {}) do
    width = math.max(width, vim.fn.strdisplaywidth(vc.name))
  end
  local lines = {}
  for _, vc in ipairs(shown.vcs or {}) do
    local free, total = vc.free, vc.total
    local line = "    " .. ui.row({ width, BAR }, { vc.name, M.bar(vc.used.gpu, total.gpu),
      t("GPUs %d/%d free · CPUs %d/%d free · memory %s/%s free · %d waiting, %d running",
        free.gpu, total.gpu, free.cpu, total.cpu, ui.size(free.memory * 1048576), ui.size(total.memory * 1048576),
        vc.waiting, vc.running) })
    if ui.value(vc.permitted) == false then
      line = line .. " · " .. t("not yours to submit to")
    end
    table.insert(lines, line)
  end
  if #lines == 0 then
    table.insert(lines, "    " .. t("(no virtual cluster you can see)"))
  end
  local nodes = shown.nodes or {}
  if #nodes > 0 then
    table.insert(lines, "    " .. t("Nodes:"))
    local node_width = 0
    for _, n in ipairs(nodes) do
      node_width = math.max(node_width, vim.fn.strdisplaywidth(n.name))
    end
    for _, n in ipairs(nodes) do
      table.insert(lines, "      " .. ui.row({ node_width, BAR }, { n.name, M.bar(n.gpuUsed, n.gpuTotal),
        t("%d of %d GPUs free", n.gpuAvailable, n.gpuTotal) }))
    end
  end
  return lines
end

local function render(buf)
  local view = views[buf]
  local lines = {
    t("Cluster profiles") .. "   " .. t("(? help)"),
    "  " .. ui.row(COLUMNS, { t("NAME"), t("USER"), t("KIND"), t("LOGIN"), "REST" }),
  }
  local entries = {}
  for _, c in ipairs(view.clusters) do
    table.insert(lines, (c.default and "* " or "  ") .. ui.row(COLUMNS, { c.name, ui.value(c.user) or "",
      ui.value(c.kind) or "", login_state(c), c["local"] and t("(embedded, on this machine)") or ui.value(c.rest) or "" }))
    entries[#lines] = c
    if view.opened[c.name] ~= nil then
      for _, line in ipairs(view.opened[c.name]) do
        table.insert(lines, line)
        entries[#lines] = c -- keys on the lines under a cluster act on it
      end
    end
  end
  view.entries = entries
  ui.set_lines(buf, 0, -1, lines)
end

-- Ask the cluster for its virtual clusters and show them under its row.
local function fetch_capacity(buf, name)
  client.execute("pai.vc.list", { { cluster = name } }, function(result)
    local view = views[buf]
    if view and view.opened[name] ~= nil and vim.api.nvim_buf_is_valid(buf) then
      view.opened[name] = capacity_lines(result)
      render(buf)
    end
  end, function(failure)
    local view = views[buf]
    if view and view.opened[name] ~= nil and vim.api.nvim_buf_is_valid(buf) then
      view.opened[name] = { "    " .. (failure.message or t("could not list its virtual clusters")) }
      render(buf)
    end
    return true
  end)
end

--- <CR>: open a cluster (its virtual clusters and nodes under its row), or close it again.
function M.toggle(buf)
  local c = current(buf)
  if not c then
    return
  end
  local view = views[buf]
  if view.opened[c.name] ~= nil then
    view.opened[c.name] = nil
    render(buf)
    return
  end
  view.opened[c.name] = { "    " .. t("Asking for its virtual clusters…") }
  render(buf)
  fetch_capacity(buf, c.name)
end

function M.refresh(buf)
  client.execute("pai.clusters.list", {}, function(result)
    local view = views[buf]
    if view and vim.api.nvim_buf_is_valid(buf) then
      view.clusters = result.clusters or {}
      names = {}
      for _, c in ipairs(view.clusters) do
        table.insert(names, c.name)
      end
      for name in pairs(view.opened) do
        fetch_capacity(buf, name)
      end
      render(buf)
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
  local buf, created = ui.listing("pai://clusters", "paiclusters", views, { clusters = {}, opened = {} },
    t(":PaiClusters keys"), function(buf)
    return {
      { "<CR>", function() M.toggle(buf) end, t("its virtual clusters: free / total GPUs, CPUs, memory; its nodes (again: close)") },
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
