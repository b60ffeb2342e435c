" A job's log buffer (pai://logs/<job>): task prefixes, the plugin's own notes, traceback frames (<CR> opens them).
if exists("b:current_syntax")
  finish
endif
syntax match paiLogTask /^\[[^\]]\+:\d\+\] /
syntax match paiLogNote /^\[pai\] .*/
syntax match paiLogError /\c\<\(error\|traceback\|exception\)\>/
syntax match paiLogFrame /File "[^"]\+", line \d\+/
highlight default link paiLogFrame Underlined
highlight default link paiLogTask Identifier
highlight default link paiLogNote WarningMsg
highlight default link paiLogError ErrorMsg
let b:current_syntax = "pailog"
