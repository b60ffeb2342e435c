-- :PaiHdfs [path] [cluster]: an HDFS browser like netrw, one buffer per folder
-- (`pai://hdfs/<path>`), over the server's `pai.hdfs.*` commands. Files open read-only.
local client = require("pai_lsp.client")
local submit = require("pai_lsp.submit")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

M.max_open_bytes = 4 * 1024 * 1024 -- a larger file opens with its first this many bytes

local views = {} -- buffer -> {path, cluster, entries}
local list -- (below)

local function join(dir, name)
  return (dir == "/" and "" or dir) .. "/" .. name
end

local function parent(path)
  local up = path:match("^(.*)/[^/]*$") or "/"
  return up == "" and "/" or up
end

local function buffer_name(path, cluster)
  return "pai://hdfs" .. (path:sub(1, 1) == "/" and "" or "/") .. path .. (cluster and ("  [" .. cluster .. "]") or "")
end

local function render(buf, listing)
  local view = views[buf]
  view.path = listing.path
  local lines = { listing.path .. (view.cluster and t("  on %s", view.cluster) or "") .. "   " .. t("(? help)") }
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
    client.execute("pai.hdfs.ls", { { path = view.path, cluster = view.cluster } }, function(listing)
      if vim.api.nvim_buf_is_valid(buf) then
        render(buf, listing)
      end
    end)
  end
end

local function current(buf)
  return ui.current(views[buf], t("no file or folder on this line"))
end

local function open_file(path, cluster, size)
  local argument = { path = path, cluster = cluster }
  if size and size > M.max_open_bytes then
    argument.length = M.max_open_bytes
  end
  client.execute("pai.hdfs.cat", { argument }, function(result)
    local buf = ui.scratch(buffer_name(path, cluster))
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
local function transfer(command, verb, lcl, remote, cluster, done, overwrite)
  local token = submit.token(verb)
  local argument = { ["local"] = lcl, remote = remote, cluster = cluster, workDoneToken = token, overwrite = overwrite or false }
  client.execute(command, { argument }, done, function(result)
    if result.kind ~= "exists" then
      return false
    end
    ui.confirm(t("%s. Replace it?", result.message), function()
      transfer(command, verb, lcl, remote, cluster, done, true)
    end)
    return true
  end)
end

function M.upload(buf)
  local view = views[buf]
  ask_local(t("Upload to %s: ", view.path), vim.fn.getcwd() .. "/", function(lcl)
    local remote = join(view.path, vim.fn.fnamemodify(lcl, ":t"))
    transfer("pai.hdfs.put", "upload", lcl, remote, view.cluster, function(result)
      ui.notify(t("uploaded %s to %s (%d file(s), %s)", lcl, result.path, result.files or 0, ui.size(result.bytes)))
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
    transfer("pai.hdfs.get", "download", lcl, entry.path, view.cluster, function(result)
      ui.notify(t("downloaded %s to %s (%d file(s), %s)", entry.path, result.path, result.files or 0, ui.size(result.bytes)))
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
    client.execute("pai.hdfs.rm", { { path = entry.path, cluster = view.cluster, recursive = folder } }, function(result)
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
      client.execute("pai.hdfs.mkdir", { { path = path, cluster = view.cluster } }, function()
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
      client.execute("pai.hdfs.mv", { { from = entry.path, to = target, cluster = view.cluster } }, function()
        M.refresh(buf)
      end)
    end
  end)
end

function M.copy_path(buf)
  local entry = current(buf)
  if entry then
    vim.fn.setreg('"', entry.path)
    if vim.fn.has("clipboard") == 1 then
      pcall(vim.fn.setreg, "+", entry.path)
    end
    ui.notify(t("copied %s", entry.path))
  end
end

local function enter(buf)
  local view, entry = views[buf], current(buf)
  if not entry then
    return
  end
  if entry.type == "dir" then
    list(entry.path, view.cluster)
  else
    open_file(entry.path, view.cluster, entry.size)
  end
end

--- :PaiHdfs [path] [cluster]: list `path` (default: your HDFS home, /user/<you>).
function M.open(path, cluster)
  path = (path and path ~= "") and path or "."
  cluster = (cluster and cluster ~= "") and cluster or nil
  client.execute("pai.hdfs.stat", { { path = path, cluster = cluster } }, function(entry)
    if entry.type == "file" then
      open_file(entry.path, cluster, entry.size)
    else
      list(entry.path, cluster)
    end
  end)
end

-- The folder `path` in its listing buffer, in the current window.
list = function(path, cluster)
  client.execute("pai.hdfs.ls", { { path = path, cluster = cluster } }, function(listing)
    local buf = ui.listing(buffer_name(listing.path, cluster), "paihdfs", views, { path = listing.path, cluster = cluster },
      t(":PaiHdfs keys"), function(buf)
        return {
          { "<CR>", function() enter(buf) end, t("open the folder, or the file (read-only)") },
          { "-", function() list(parent(views[buf].path), cluster) end, t("the parent folder") },
          { "u", function() M.upload(buf) end, t("upload a local file or folder here") },
          { "d", function() M.download(buf) end, t("download the file or folder") },
          { "D", function() M.delete(buf) end, t("delete the file or folder (asks first)") },
          { "m", function() M.mkdir(buf) end, t("new folder") },
          { "r", function() M.rename(buf) end, t("rename or move") },
          { "y", function() M.copy_path(buf) end, t("copy the path") },
          { "R", function() M.refresh(buf) end, t("refresh") },
        }
      end)
    render(buf, listing)
    ui.show(buf, "current")
  end)
end

return M
