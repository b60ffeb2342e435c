vim.api.nvim_create_user_command("PaiSubmit", function() require("pai_lsp").command("pai.submitJob") end, {})
vim.api.nvim_create_user_command("PaiRunLocally", function() require("pai_lsp").command("pai.runLocally") end, {})
