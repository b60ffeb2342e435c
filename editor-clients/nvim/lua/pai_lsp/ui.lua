-- What the plugin's buffers share: read-only scratch buffers, showing them, keymaps with a `?`
-- help, notifications, confirmations and the formats of sizes, times and durations.
local t = require("pai_lsp.i18n").t

local M = {}

M.FINAL = { SUCCEEDED = true, FAILED = true, STOPPED = true }

--- vim.notify with the plugin's prefix; `opts.replace` (nvim-notify) updates an earlier one.
function M.notify(message, level, opts)
  return vim.notify("pai: " .. message, level or vim.log.levels.INFO, vim.tbl_extend("keep", opts or {}, { title = "pai" }))
end

function M.error(message)
  return M.notify(message, vim.log.levels.ERROR)
end

--- The buffer named `name`, if one is loaded.
function M.find(name)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) == name then
      return buf
    end
  end
  return nil
end

--- A read-only scratch buffer named `name` (reused when it exists); `listed` puts it in :ls.
function M.scratch(name, filetype, listed)
  local buf = M.find(name)
  if buf then
    return buf, false
  end
  buf = vim.api.nvim_create_buf(listed or false, true)
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  return buf, true
end

--- A listing buffer `name` (:PaiJobs, :PaiHdfs, :PaiClusters) with its state in `views[buf]`
--- (forgotten, and `state.on_wipe()` called, when the buffer is wiped) and the keys `keys(buf)`
--- returns (see M.keymaps). An existing one is reused as it is. Returns the buffer and whether it
--- is new.
function M.listing(name, filetype, views, state, title, keys)
  local buf, created = M.scratch(name, filetype)
  if created then
    views[buf] = state
    vim.api.nvim_create_autocmd("BufWipeout", { buffer = buf, once = true, callback = function()
      views[buf] = nil
      if state.on_wipe then
        state.on_wipe()
      end
    end })
    M.keymaps(buf, title, keys(buf))
  end
  return buf, created
end

--- Replace lines `first`..`last` (0-based, end-exclusive, -1 = end) of a read-only buffer.
function M.set_lines(buf, first, last, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, first, last, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- A read-only buffer `name` showing `lines`, in a split (made again if it exists); `keys` as for
--- M.keymaps (`q` and `?` are always there). Returns the buffer.
function M.show_text(name, lines, filetype, keys)
  local buf, created = M.scratch(name, filetype)
  M.set_lines(buf, 0, -1, lines)
  M.show(buf, "split")
  if created then
    M.keymaps(buf, name, keys or {})
  end
  return buf
end

--- `text`'s lines (a last newline ends the last line, it does not start an empty one).
function M.lines(text)
  return vim.split((text:gsub("\n$", "")), "\n", { plain = true })
end

--- Show `buf`: focus a window of this tab that shows it, else open it (`how`: "current", "split",
--- "vsplit" or "tab"). Returns the window.
function M.show(buf, how)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_set_current_win(win)
      return win
    end
  end
  if how == "split" then
    vim.cmd("belowright split")
  elseif how == "vsplit" then
    vim.cmd("belowright vsplit")
  elseif how == "tab" then
    vim.cmd("tabnew")
  end
  vim.api.nvim_win_set_buf(0, buf)
  return vim.api.nvim_get_current_win()
end

--- Buffer-local normal-mode keys: `keys` is a list of {lhs, function, description}; `?` shows them
--- all and `q` closes the window.
function M.keymaps(buf, title, keys)
  local all = vim.list_extend(vim.deepcopy(keys), {
    { "q", M.close, t("close this window") },
  })
  table.insert(all, { "?", function() M.help(title, all) end, t("this help") })
  for _, key in ipairs(all) do
    vim.keymap.set("n", key[1], key[2], { buffer = buf, nowait = true, silent = true, desc = key[3] })
  end
end

--- Close the current window and go back to the one used before it (the last window closes its
--- buffer instead).
function M.close()
  local previous = vim.fn.win_getid(vim.fn.winnr("#"))
  if #vim.api.nvim_tabpage_list_wins(0) == 1 then
    vim.cmd("bprevious")
    return
  end
  vim.cmd("close")
  if previous ~= 0 and vim.api.nvim_win_is_valid(previous) then
    vim.api.nvim_set_current_win(previous)
  end
end

--- The keys of a buffer, in a notification (and :messages).
function M.help(title, keys)
  local lines = { title }
  for _, key in ipairs(keys) do
    table.insert(lines, ("  %-6s %s"):format(key[1], key[3]))
  end
  M.notify(table.concat(lines, "\n"))
end

--- `cells` joined by spaces, each but the last padded to its width in `widths` (display cells,
--- so Chinese text lines up).
function M.row(widths, cells)
  local out = {}
  for i, cell in ipairs(cells) do
    cell = tostring(cell)
    if widths[i] then
      cell = cell .. string.rep(" ", widths[i] - vim.fn.strdisplaywidth(cell))
    end
    table.insert(out, cell)
  end
  return table.concat(out, " ")
end

--- Ask yes/no (no unless the answer is y or yes) and call `on_yes` on yes. A prompt through
--- vim.ui.input, so plugins that restyle prompts show it too.
function M.confirm(question, on_yes)
  vim.ui.input({ prompt = question .. " [y/N] " }, function(answer)
    answer = (answer or ""):lower()
    if answer == "y" or answer == "yes" then
      on_yes()
    end
  end)
end

--- The entry shown on the cursor's line (`view.entries` maps line numbers to entries); with none,
--- `missing` (what the user should put the cursor on) is shown.
function M.current(view, missing)
  local entry = view and view.entries and view.entries[vim.api.nvim_win_get_cursor(0)[1]]
  if not entry then
    M.notify(missing)
  end
  return entry
end

function M.size(n)
  if not n or n == vim.NIL then
    return ""
  end
  local units = { "B", "KB", "MB", "GB", "TB" }
  local i = 1
  while n >= 1024 and i < #units do
    n = n / 1024
    i = i + 1
  end
  return i == 1 and ("%d B"):format(n) or ("%.1f %s"):format(n, units[i])
end

--- A time in ms since the epoch, as local "YYYY-MM-DD HH:MM".
function M.time(ms)
  if not ms or ms == vim.NIL or ms == 0 then
    return ""
  end
  return os.date("%Y-%m-%d %H:%M", math.floor(ms / 1000))
end

--- "42s", "3m05s", "1h02m": how long a job ran (or runs).
function M.duration(created, completed)
  if not created or created == vim.NIL or created == 0 then
    return ""
  end
  local finish = (completed and completed ~= vim.NIL and completed > 0) and completed or os.time() * 1000
  local s = math.max(0, math.floor((finish - created) / 1000))
  if s < 60 then
    return ("%ds"):format(s)
  elseif s < 3600 then
    return ("%dm%02ds"):format(math.floor(s / 60), s % 60)
  end
  return ("%dh%02dm"):format(math.floor(s / 3600), math.floor(s % 3600 / 60))
end

--- JSON null (vim.NIL) as nil.
function M.value(x)
  if x == vim.NIL then
    return nil
  end
  return x
end

return M
