-- Every watched job's end (or retry), wherever it was started: here, another editor, the terminal.
-- The daemon tells it once (`pai/jobEnded`); a failure comes with its cause in one line (:PaiWhy for
-- the report). Loaded by setup(), so Neovim says it whatever else was opened.
local client = require("pai_lsp.client")
local ui = require("pai_lsp.ui")
local t = require("pai_lsp.i18n").t

client.on("pai/jobEnded", function(p)
  local state = ui.value(p.state)
  local text = state == "RETRIED" and t("job %s is running again (retry %d)", p.job, ui.value(p.retries) or 1)
    or t("job %s %s", p.job, state)
  local why = ui.value(p.why)
  if why and why ~= "" then
    text = text .. ": " .. why
  end
  local level = (state == "SUCCEEDED" or state == "RETRIED") and vim.log.levels.INFO or vim.log.levels.WARN
  ui.notify(text, level)
  if package.loaded["pai_lsp.submit"] then -- (nothing was started here when it is not loaded)
    require("pai_lsp.submit").ended(p.job, state)
  end
end)

return {}
