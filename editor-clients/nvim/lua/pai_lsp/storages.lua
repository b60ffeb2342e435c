-- :PaiStorages [storage[:path]] [cluster]: the storages a cluster's jobs mount (NFS, Samba, Azure …,
-- the local cluster's folders), beside its HDFS: name, type, read-only, where jobs see it, default
-- (`*`) and server, in `pai://storages`; <CR> browses one with the HDFS browser (hdfs.lua), on the
-- storage instead of HDFS.
local client = require("pai_lsp.client")
local hdfs = require("pai_lsp.hdfs")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local COLUMNS = { 16, 10, 10, 20 } -- name, type, read-only, mount path (then server)
local views = {} -- buffer -> {cluster, entries}

-- `pai.storages.list`'s argument: an object even without a cluster.
local function on(cluster)
  return cluster and { cluster = cluster } or vim.empty_dict()
end

local function render(buf, result)
  local lines = {
    t("Storages of %s", result.cluster) .. "   " .. t("(? help)"),
    "  " .. ui.row(COLUMNS, { t("NAME"), t("TYPE"), t("ACCESS"), t("IN JOBS AT"), t("SERVER") }),
  }
  local entries = {}
  for _, s in ipairs(result.storages or {}) do
    table.insert(lines, (s.default and "* " or "  ") .. ui.row(COLUMNS, { s.name, ui.value(s.type) or "?",
      s.readOnly and t("read-only") or t("read-write"), s.mountPath, (ui.value(s.server) or "") .. (s.share and "" or t(" (your folder)")) }))
    entries[#lines] = s
  end
  if not next(entries) then
    table.insert(lines, "  " .. t("(no storage: an administrator adds them to your groups)"))
  end
  views[buf].entries = entries
  ui.set_lines(buf, 0, -1, lines)
end

function M.refresh(buf)
  local view = views[buf]
  client.execute("pai.storages.list", { on(view.cluster) }, function(result)
    if views[buf] and vim.api.nvim_buf_is_valid(buf) then
      render(buf, result)
    end
  end)
end

local function browse(buf, path)
  local storage = ui.current(views[buf], t("no storage on this line"))
  if storage then
    hdfs.browse(path or "/", { cluster = views[buf].cluster, storage = storage })
  end
end

-- The storage named `name` of `cluster`, as the server lists it, to `done` (a name it does not list: said).
local function find(name, cluster, done)
  client.execute("pai.storages.list", { on(cluster) }, function(result)
    for _, s in ipairs(result.storages or {}) do
      if s.name == name then
        return done(s)
      end
    end
    ui.error(t("%s has no storage %s that you may use", result.cluster, name))
  end)
end

--- :PaiStorages [storage[:path]] [cluster]: the list, or `path` (default `/`) of one storage.
function M.open(target, cluster)
  cluster = (cluster and cluster ~= "") and cluster or nil
  if target and target ~= "" then
    local name, path = target:match("^([^:]+):?(.*)$")
    return find(name, cluster, function(storage)
      hdfs.browse(path ~= "" and path or "/", { cluster = cluster, storage = storage })
    end)
  end
  local name = "pai://storages" .. (cluster and ("  [" .. cluster .. "]") or "")
  local buf = ui.listing(name, "paistorages", views, { cluster = cluster }, t(":PaiStorages keys"), function(buf)
    return {
      { "<CR>", function() browse(buf) end, t("browse the storage") },
      { "h", function() hdfs.open(nil, views[buf].cluster) end, t("the cluster's HDFS (:PaiHdfs)") },
      { "R", function() M.refresh(buf) end, t("refresh") },
    }
  end)
  ui.show(buf, "current")
  M.refresh(buf)
end

--- Storage names for command-line completion (asks the server when it runs).
function M.names(cluster)
  local result = client.execute_sync("pai.storages.list", { on(cluster) })
  local names = {}
  for _, s in ipairs(result and result.storages or {}) do
    table.insert(names, s.name)
  end
  return names
end

return M
