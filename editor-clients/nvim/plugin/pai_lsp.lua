-- User commands of pai-lsp (see :help pai-lsp). The server starts on the first use.
if vim.g.loaded_pai_lsp then
  return
end
vim.g.loaded_pai_lsp = true

local function pai()
  return require("pai_lsp")
end

local function clusters()
  return require("pai_lsp.clusters").names()
end

local function matching(list, lead)
  return vim.tbl_filter(function(item)
    return item:sub(1, #lead) == lead
  end, list)
end

local command = vim.api.nvim_create_user_command

command("PaiSubmit", function(o) pai().submit(o.args) end, {
  nargs = "?", desc = "Submit this job config (to the default cluster or the one named)",
  complete = function(lead) return matching(clusters(), lead) end,
})
command("PaiRun", function() pai().run() end, { desc = "Run this job config on the embedded local cluster" })
command("PaiRunLocally", function() pai().run() end, { desc = "Same as :PaiRun" })
command("PaiPreview", function(o) pai().preview(o.args) end, {
  nargs = "?", desc = "What :PaiSubmit would upload and submit, nothing sent",
  complete = function(lead) return matching(clusters(), lead) end,
})
command("PaiRendered", function(o) pai().rendered(o.args) end, {
  nargs = "?", desc = "This job as the server will see it (templates filled in, defaults applied, secrets masked)",
  complete = function(lead) return matching(clusters(), lead) end,
})
command("PaiCancel", function() pai().cancel() end, { desc = "Stop the upload of a submit still uploading" })
command("PaiLogs", function(o)
  -- {job} [cluster] then the filter's words (--role NAME, --index N, --grep TEXT, role:NAME, task:N)
  local cluster, rest = o.fargs[2], 3
  if cluster and (cluster:match("^%-%-") or cluster:match("^%a+:")) then
    cluster, rest = nil, 2
  end
  pai().logs(o.fargs[1], cluster, vim.list_slice(o.fargs, rest))
end, {
  nargs = "+", desc = "The live log of a job, filtered by --role, --index and --grep when given",
  complete = function(lead, line)
    local words = vim.split(line, "%s+")
    if #words > 2 then
      if lead:match("^%-") then
        return matching({ "--role", "--index", "--grep" }, lead)
      end
      return #words == 3 and matching(clusters(), lead) or {}
    end
    return matching(require("pai_lsp.logs").jobs(), lead)
  end,
})
command("PaiLogFilter", function(o) require("pai_lsp.logs").set_filter(o.fargs) end, {
  nargs = "*", desc = "Show only some lines of the log: role:NAME task:N and a regular expression; no words: every line",
})
command("PaiWhy", function(o) pai().why(o.fargs[1], o.fargs[2]) end, {
  nargs = "*", desc = "Why a job failed, and where: the quickfix list and a report",
  complete = function(lead) return matching(require("pai_lsp.logs").jobs(), lead) end,
})
command("PaiJobs", function(o) pai().jobs(o.args) end, {
  nargs = "?", desc = "Your jobs on the default cluster or the one named",
  complete = function(lead) return matching(clusters(), lead) end,
})
command("PaiHdfs", function(o) pai().hdfs(o.fargs[1], o.fargs[2]) end, {
  nargs = "*", desc = "Browse HDFS (default: your home folder)",
  complete = function(lead, line)
    if #vim.split(line, "%s+") > 2 then
      return matching(clusters(), lead)
    end
    return {}
  end,
})
command("PaiStorages", function(o) pai().storages(o.fargs[1], o.fargs[2]) end, {
  nargs = "*", desc = "The storages your jobs may mount, beside HDFS; browse one (storage[:path])",
  complete = function(lead, line)
    if #vim.split(line, "%s+") > 2 then
      return matching(clusters(), lead)
    end
    return matching(require("pai_lsp.storages").names(), lead)
  end,
})
for name, action in pairs({ PaiCode = "code", PaiCompare = "compare", PaiRerun = "rerun" }) do
  command(name, function(o) require("pai_lsp.records")[action](o.fargs[1], o.fargs[2]) end, {
    nargs = "+", desc = ({ code = "The code a job was submitted with", compare = "What changed in the workspace since a job was submitted (diff split)",
      rerun = "Submit a job again: the same code and config, a new name" })[action],
    complete = function(lead) return matching(require("pai_lsp.jobs").names(), lead) end,
  })
end
command("PaiDiff", function(o) require("pai_lsp.records").diff(o.fargs[1], o.fargs[2], o.fargs[3]) end, {
  nargs = "+", desc = "Compare two runs: config keys, code, commit and environment",
  complete = function(lead) return matching(require("pai_lsp.jobs").names(), lead) end,
})
command("PaiDebugJob", function(o) require("pai_lsp.dap").debug_job(o.fargs) end, {
  nargs = "*", desc = "Submit this job with its tasks waiting for a debugger, and attach nvim-dap to each ([tasks] [--post-mortem MINUTES])",
  complete = function(lead) return matching({ "first", "all", "--post-mortem" }, lead) end,
})
command("PaiDebugAttach", function(o) require("pai_lsp.dap").attach(o.fargs[1], o.fargs[2]) end, {
  nargs = "+", desc = "Attach nvim-dap to the tasks of a running job that wait for a debugger",
  complete = function(lead) return matching(require("pai_lsp.jobs").names(), lead) end,
})
command("PaiClusters", function() pai().clusters() end, { desc = "Cluster profiles: add, default, log in, remove" })
