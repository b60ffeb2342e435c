-- pai-lsp for Neovim (0.7 or newer): the language server for job-file buffers, and jobs, logs,
-- HDFS and cluster profiles in buffers. A thin client: every operation is a server command
-- (docs/protocol.md); this plugin only shows what the server answers and pushes. See :help pai-lsp.
local client = require("pai_lsp.client")

local M = {}

M.config = client.config

--- Debug Job with nvim-dap: the adapter (`dap.adapters.pai = require("pai_lsp").dap.adapter`) and the
--- attach configurations built from `pai.debugTargets` (see :help pai-lsp-debug).
M.dap = require("pai_lsp.dap")

--- require("pai_lsp").setup({ cmd = {...}, settings = {...}, log_window = "split" })
function M.setup(opts)
  opts = opts or {}
  if opts.log_window ~= nil then
    require("pai_lsp.logs").window = opts.log_window or nil
    opts.log_window = nil
  end
  for key, value in pairs(opts) do
    client.config[key] = value
  end
  require("pai_lsp.notices") -- a job's end is said whatever else is open
  local group = vim.api.nvim_create_augroup("pai_lsp", { clear = true })
  -- The job files are the ones the server says (every format's patterns: *.pai.json, *.paddle.json …);
  -- buffers opened before it has said so are attached when it has.
  client.with_catalogue(function(catalogue)
    local patterns = client.job_file_patterns(catalogue)
    if #patterns == 0 then
      return
    end
    vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
      group = group,
      pattern = patterns,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and client.is_job_file(vim.api.nvim_buf_get_name(buf)) then
        M.attach(buf)
      end
    end
  end)
end

--- Start the server for a job-config buffer (once per Neovim) and attach it.
function M.attach(bufnr)
  return client.attach(bufnr)
end

--- :PaiSubmit [cluster]
function M.submit(cluster)
  require("pai_lsp.submit").submit(0, cluster ~= "" and cluster or nil, false)
end

--- :PaiRun
function M.run()
  require("pai_lsp.submit").submit(0, nil, true)
end

--- :PaiPreview [cluster]
function M.preview(cluster)
  require("pai_lsp.preview").open(0, cluster ~= "" and cluster or nil)
end

--- :PaiRendered [cluster]
function M.rendered(cluster)
  require("pai_lsp.preview").rendered(0, cluster ~= "" and cluster or nil)
end

--- :PaiCancel
function M.cancel()
  require("pai_lsp.submit").cancel()
end

--- :PaiLogs {job} [cluster] [--role NAME] [--index N] [--grep TEXT]
function M.logs(job, cluster, filter_words)
  if not job or job == "" then
    require("pai_lsp.ui").error(require("pai_lsp.i18n").t("which job? :PaiLogs {job}"))
    return
  end
  require("pai_lsp.logs").open(job, cluster ~= "" and cluster or nil, filter_words)
end

--- :PaiWhy [job] [cluster]: why the job (default: the last one that failed here) failed, and where
function M.why(job, cluster)
  require("pai_lsp.why").open(job, cluster ~= "" and cluster or nil)
end

--- :PaiJobs [cluster]
function M.jobs(cluster)
  require("pai_lsp.jobs").open(cluster)
end

--- :PaiHdfs [path] [cluster]
function M.hdfs(path, cluster)
  require("pai_lsp.hdfs").open(path, cluster)
end

--- :PaiStorages [storage[:path]] [cluster]
function M.storages(target, cluster)
  require("pai_lsp.storages").open(target, cluster)
end

--- :PaiClusters
function M.clusters()
  require("pai_lsp.clusters").open()
end

--- Run any server command (docs/protocol.md) with `arguments`; `callback(result)` on success.
function M.execute(command, arguments, callback)
  client.execute(command, arguments or {}, callback)
end

return M
