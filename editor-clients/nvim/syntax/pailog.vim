" A job's log buffer (pai://logs/<job>): task prefixes and the plugin's own notes.
if exists("b:current_syntax")
  finish
endif
syntax match paiLogTask /^\[[^\]]\+:\d\+\] /
syntax match paiLogNote /^\[pai\] .*/
syntax match paiLogError /\c\<\(error\|traceback\|exception\)\>/
highlight default link paiLogTask Identifier
highlight default link paiLogNote WarningMsg
highlight default link paiLogError ErrorMsg
let b:current_syntax = "pailog"
