-- What a job ran (its submission record): the files it was submitted with, each opened
-- read-only as it was sent; what changed in the workspace since, as a diff split; a rerun of the
-- same code and config under a new name; two runs compared. `:PaiCode`, `:PaiCompare`, `:PaiRerun`, `:PaiDiff`,
-- and C / d / r in :PaiJobs.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

local M = {}

local codes = {} -- buffer -> view {job, cluster, entries}

--- A submitted file, read-only, in buffer `pai://code/<job>/<path>`; `then_(buf)` once it is filled.
local function submitted(job, cluster, path, how, then_)
  client.execute("pai.job.submittedFile", { { job = job, cluster = cluster, path = path } }, function(result)
    local name = "pai://code/" .. job .. "/" .. path
    local buf = ui.scratch(name)
    ui.set_lines(buf, 0, -1, ui.lines(result.text or ""))
    if how then
      ui.show(buf, how)
    end
    if then_ then
      then_(buf)
    end
  end)
end

--- :PaiCode {job} [cluster]: the files the job was submitted with; <CR> opens one as it was sent.
function M.code(job, cluster)
  client.execute("pai.job.record", { { job = job, cluster = cluster } }, function(shown)
    for _, note in ipairs(shown.notes or {}) do
      ui.notify(note, vim.log.levels.WARN)
    end
    local record = shown.record
    local buf = ui.listing("pai://code/" .. job, "", codes, { job = job, cluster = cluster }, t(":PaiCode keys"), function(b)
      return {
        { "<CR>", function()
          local view = codes[b]
          local path = ui.current(view, t("no file on this line"))
          if path then
            submitted(view.job, view.cluster, path, "split")
          end
        end, t("open the file as the job sent it") },
        { "d", function()
          local view = codes[b]
          local path = ui.current(view, t("no file on this line"))
          if path then
            M.diff_file(view.job, view.cluster, path, M.workspace(record))
          end
        end, t("compare the file with the workspace's") },
      }
    end)
    local view = codes[buf]
    view.entries = {}
    local count, sent = vim.tbl_count(record.files), ui.value(record.codeDir) or "-"
    local lines = {
      count == 1 and t("Code of %s: %d file, sent to %s", job, count, sent) or t("Code of %s: %d files, sent to %s", job, count, sent),
      t("code hash %s, record from the %s", record.codeHash:sub(1, 12), shown.source) }
    local paths = vim.tbl_keys(record.files)
    table.sort(paths)
    for _, path in ipairs(paths) do
      table.insert(lines, ("%-60s %s"):format(path, ui.size(record.files[path].size)))
      view.entries[#lines] = path
    end
    ui.set_lines(buf, 0, -1, lines)
    ui.show(buf, "split")
  end)
end

--- The workspace to compare with: this one when it holds the job's config file, else where the job was submitted from.
function M.workspace(record)
  local cwd = vim.fn.getcwd()
  if vim.fn.filereadable(cwd .. "/" .. (record.configFile or "")) == 0 and vim.fn.isdirectory(record.workspace) == 1 then
    return record.workspace
  end
  return cwd
end

--- A diff split in a new tab: the workspace's file (left) against the file as the job sent it (right).
function M.diff_file(job, cluster, path, workspace)
  vim.cmd("tabnew " .. vim.fn.fnameescape(workspace .. "/" .. path))
  vim.cmd("diffthis")
  submitted(job, cluster, path, nil, function(buf)
    vim.cmd("rightbelow vsplit")
    vim.api.nvim_win_set_buf(0, buf)
    vim.cmd("diffthis")
  end)
end

--- :PaiCompare {job} [cluster]: what changed in the workspace since the job was submitted.
function M.compare(job, cluster)
  client.execute("pai.job.record", { { job = job, cluster = cluster } }, function(shown)
    local workspace = M.workspace(shown.record)
    client.execute("pai.job.compareWorkspace", { { job = job, cluster = cluster, workspace = workspace } }, function(found)
      local differing = vim.list_extend(vim.deepcopy(found.changed or {}), found.removed or {})
      if #differing == 0 then
        ui.notify(t("the workspace holds exactly the code %s ran", job))
      elseif #differing == 1 then
        M.diff_file(job, cluster, differing[1], workspace)
      else
        vim.ui.select(differing, { prompt = t("%d files differ from what %s ran: ", #differing, job) }, function(path)
          if path then
            M.diff_file(job, cluster, path, workspace)
          end
        end)
      end
    end)
  end)
end

--- :PaiRerun {job} [cluster]: the same code and config again, under a new name.
function M.rerun(job, cluster, on_done)
  client.execute("pai.job.rerun", { { job = job, cluster = cluster } }, function(done)
    ui.notify(t("job %s submitted: rerun of %s with %s", done.job, job, done.codeFrom))
    if on_done then
      on_done(done)
    end
  end)
end

--- :PaiDiff {job} {other} [cluster]: two runs compared (config keys, code with unified diffs, commit, environment).
function M.diff(job, other, cluster)
  client.execute("pai.job.diff", { { job = job, other = other, cluster = cluster } }, function(found)
    ui.show_text("pai://diff/" .. job .. "/" .. other, ui.lines(found.text), "diff")
  end)
end

return M
