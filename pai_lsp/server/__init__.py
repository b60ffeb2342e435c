"""The language server: maps the job-config core to LSP. No job logic of its own.

`app` (pygls and lsprotocol) is imported only when asked for, so `fast_start` can answer
`initialize` before it has loaded.
"""
