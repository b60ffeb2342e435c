"""What the client side and the local cluster both use, and nothing else of pai_lsp: the per-OS
folders (`folders`), writing a file whole (`atomic`), names a file may have (`winnames`), one process
at a time per user (`userlock`), the portable process switches (`portable`), private files on Windows
(`winacl`), reading a config file safely (`config_file`), PaddlePaddle Cloud's multipart bodies
(`multipart`)."""
