-- :PaiHdfs [path] [cluster]: an HDFS browser like netrw, one buffer per folder
-- (`pai://hdfs/<path>`), over the server's `pai.hdfs.*` commands. Files open read-only.
-- The same browser shows a storage the cluster's jobs mount (:PaiStorages, `pai://storage/<name>/<path>`):
-- a view's `place` is {cluster, storage} (storage: the server's StorageInfo, or nil for HDFS), and
-- every command gets both; a read-only storage has no write keys.
local client = require("pai_lsp.client")
local submit = require("pai_lsp.submit")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

M.max_open_bytes = 4 * 1024 * 1024 -- a larger file opens with its first this many bytes

local views = {} -- buffer -> {path, place, entries}
local list -- (below)

-- A command's argument: `fields` on the place's cluster and storage.
local function on(place, fields)
  fields.cluster = place.cluster
  fields.storage = place.storage and place.storage.name or nil
  return fields
end

local function join(dir, name)
  return (dir == "/" and "" or dir) .. "/" .. name
end

local function parent(path)
  local up = path:match("^(.*)/[^/]*$") or "/"
  return up == "" and "/" or up
end

local function buffer_name(path, place)
  local root = place.storage and ("pai://storage/" .. place.storage.name) or "pai://hdfs"
  return root .. (path:sub(1, 1) == "/" and "" or "/") .. path .. (place.cluster and ("  [" .. place.cluster .. "]") or "")
end

-- The title line's place: "on CLUSTER", and a storage's name, mount path and read-only.
local function where(place)
  local parts = {}
  if place.storage then
    local s = place.storage
    table.insert(parts, t("  storage %s (in jobs: %s)", s.name, s.mountPath) .. (s.readOnly and t(", read-only") or ""))
  end
  if place.cluster then
    table.insert(parts, t("  on %s", place.cluster))
  end
  return table.concat(parts)
end

local function render(buf, listing)
  local view = views[buf]
  view.path = listing.path
  local lines = { listing.path .. where(view.place) .. "   " .. t("(? help)") }
  view.entries = {}
  if listing.path ~= "/" then
    table.insert(lines, "../")
    view.entries[2] = { name = "..", type = "dir", path = parent(listing.path) }
  end
  local entries = listing.entries or {}
  table.sort(entries, function(a, b)
    if a.type ~= b.type then
      return a.type == "dir"
    end
    return a.name < b.name
  end)
  for _, e in ipairs(entries) do
    local shown = e.name .. (e.type == "dir" and "/" or "")
    table.insert(lines, ("%-40s %10s  %s"):format(shown, e.type == "dir" and "" or ui.size(e.size), ui.time(ui.value(e.modified))))
    e.path = join(listing.path, e.name)
    view.entries[#lines] = e
  end
  ui.set_lines(buf, 0, -1, lines)
end

--- List the folder again (after a change).
function M.refresh(buf)
  local view = views[buf]
  if view then
    client.execute("pai.hdfs.ls", { on(view.place, { path = view.path }) }, function(listing)
      if vim.api.nvim_buf_is_valid(buf) then
        render(buf, listing)
      end
    end)
  end
end

local function current(buf)
  return ui.current(views[buf], t("no file or folder on this line"))
end

local function open_file(path, place, size)
  local argument = on(place, { path = path })
  if size and size > M.max_open_bytes then
    argument.length = M.max_open_bytes
  end
  client.execute("pai.hdfs.cat", { argument }, function(result)
    local buf = ui.scratch(buffer_name(path, place))
    local text = (result.text or ""):gsub("\n$", "")
    ui.set_lines(buf, 0, -1, vim.split(text, "\n", { plain = true }))
    vim.bo[buf].readonly = true
    ui.show(buf, "current")
    vim.cmd("filetype detect")
    if argument.length then
      ui.notify(t("%s: showing its first %s of %s", path, ui.size(argument.length), ui.size(size)), vim.log.levels.WARN)
    end
  end)
end

-- Ask for a local path (file completion); `done` gets it absolute, without a trailing "/"; an
-- empty answer (or <Esc>) does nothing.
local function ask_local(prompt, default, done)
  vim.ui.input({ prompt = prompt, default = default, completion = "file" }, function(lcl)
    if lcl and lcl ~= "" then
      done((vim.fn.fnamemodify(vim.fn.expand(lcl), ":p"):gsub("/$", "")))
    end
  end)
end

-- A transfer; what is there already is replaced only once the user says yes (the server answers
-- `kind = "exists"` first).
local function transfer(command, verb, lcl, remote, place, done, overwrite)
  local token = submit.token(verb)
  local argument = on(place, { ["local"] = lcl, remote = remote, workDoneToken = token, overwrite = overwrite or false })
  client.execute(command, { argument }, done, function(result)
    if result.kind ~= "exists" then
      return false
    end
    ui.confirm(t("%s. Replace it?", result.message), function()
      transfer(command, verb, lcl, remote, place, done, true)
    end)
    return true
  end)
end

function M.upload(buf)
  local view = views[buf]
  ask_local(t("Upload to %s: ", view.path), vim.fn.getcwd() .. "/", function(lcl)
    local remote = join(view.path, vim.fn.fnamemodify(lcl, ":t"))
    transfer("pai.hdfs.put", "upload", lcl, remote, view.place, function(result)
      local n = result.files or 0
      ui.notify(n == 1 and t("uploaded %s to %s (%d file, %s)", lcl, result.path, n, ui.size(result.bytes))
        or t("uploaded %s to %s (%d files, %s)", lcl, result.path, n, ui.size(result.bytes)))
      M.refresh(buf)
    end)
  end)
end

function M.download(buf)
  local view, entry = views[buf], current(buf)
  if not entry or entry.name == ".." then
    return
  end
  ask_local(t("Download %s to: ", entry.path), vim.fn.getcwd() .. "/" .. entry.name, function(lcl)
    transfer("pai.hdfs.get", "download", lcl, entry.path, view.place, function(result)
      local n = result.files or 0
      ui.notify(n == 1 and t("downloaded %s to %s (%d file, %s)", entry.path, result.path, n, ui.size(result.bytes))
        or t("downloaded %s to %s (%d files, %s)", entry.path, result.path, n, ui.size(result.bytes)))
    end)
  end)
end

function M.delete(buf)
  local view, entry = views[buf], current(buf)
  if not entry or entry.name == ".." then
    return
  end
  local folder = entry.type == "dir"
  local question = folder and t("Delete folder %s and everything in it?", entry.path) or t("Delete %s?", entry.path)
  ui.confirm(question, function()
    client.execute("pai.hdfs.rm", { on(view.place, { path = entry.path, recursive = folder }) }, function(result)
      ui.notify(t("deleted %s", result.path))
      M.refresh(buf)
    end)
  end)
end

function M.mkdir(buf)
  local view = views[buf]
  vim.ui.input({ prompt = t("New folder in %s: ", view.path) }, function(name)
    if name and name ~= "" then
      local path = name:sub(1, 1) == "/" and name or join(view.path, name)
      client.execute("pai.hdfs.mkdir", { on(view.place, { path = path }) }, function()
        M.refresh(buf)
      end)
    end
  end)
end

function M.rename(buf)
  local view, entry = views[buf], current(buf)
  if not entry or entry.name == ".." then
    return
  end
  vim.ui.input({ prompt = t("Rename to: "), default = entry.path }, function(target)
    if target and target ~= "" and target ~= entry.path then
      target = target:sub(1, 1) == "/" and target or join(view.path, target)
      client.execute("pai.hdfs.mv", { on(view.place, { from = entry.path, to = target }) }, function()
        M.refresh(buf)
      end)
    end
  end)
end

-- On a storage, the path as a job sees it (under the storage's mount path).
function M.copy_path(buf)
  local view, entry = views[buf], current(buf)
  if entry then
    local storage = view.place.storage
    local path = storage and ((storage.mountPath:gsub("/$", "")) .. (entry.path == "/" and "" or entry.path)) or entry.path
    vim.fn.setreg('"', path)
    if vim.fn.has("clipboard") == 1 then
      pcall(vim.fn.setreg, "+", path)
    end
    ui.notify(t("copied %s", path))
  end
end

local function enter(buf)
  local view, entry = views[buf], current(buf)
  if not entry then
    return
  end
  if entry.type == "dir" then
    list(entry.path, view.place)
  else
    open_file(entry.path, view.place, entry.size)
  end
end

-- Up a folder; from a storage's top, back to the list of storages.
local function up(buf)
  local view = views[buf]
  if view.place.storage and view.path == "/" then
    require("pai_lsp.storages").open(nil, view.place.cluster)
  else
    list(parent(view.path), view.place)
  end
end

--- :PaiHdfs [path] [cluster]: list `path` (default: your HDFS home, /user/<you>).
function M.open(path, cluster)
  path = (path and path ~= "") and path or "."
  cluster = (cluster and cluster ~= "") and cluster or nil
  M.browse(path, { cluster = cluster })
end

--- `path` on `place` ({cluster, storage}: see the top): a folder's listing, or a file opened.
function M.browse(path, place)
  client.execute("pai.hdfs.stat", { on(place, { path = path }) }, function(entry)
    if entry.type == "file" then
      open_file(entry.path, place, entry.size)
    else
      list(entry.path, place)
    end
  end)
end

-- The folder `path` in its listing buffer, in the current window.
list = function(path, place)
  client.execute("pai.hdfs.ls", { on(place, { path = path }) }, function(listing)
    local writable = not (place.storage and place.storage.readOnly)
    local buf = ui.listing(buffer_name(listing.path, place), "paihdfs", views, { path = listing.path, place = place },
      place.storage and t(":PaiStorages keys") or t(":PaiHdfs keys"), function(buf)
        local keys = {
          { "<CR>", function() enter(buf) end, t("open the folder, or the file (read-only)") },
          { "-", function() up(buf) end, place.storage and t("the parent folder (from the top: the storages)") or t("the parent folder") },
          { "d", function() M.download(buf) end, t("download the file or folder") },
          { "y", function() M.copy_path(buf) end, place.storage and t("copy the path as jobs see it") or t("copy the path") },
          { "R", function() M.refresh(buf) end, t("refresh") },
        }
        if writable then
          table.insert(keys, 3, { "u", function() M.upload(buf) end, t("upload a local file or folder here") })
          table.insert(keys, 5, { "D", function() M.delete(buf) end, t("delete the file or folder (asks first)") })
          table.insert(keys, 6, { "m", function() M.mkdir(buf) end, t("new folder") })
          table.insert(keys, 7, { "r", function() M.rename(buf) end, t("rename or move") })
        end
        return keys
      end)
    render(buf, listing)
    ui.show(buf, "current")
  end)
end

return M
