" :PaiHdfs folder listings: the path, folders, sizes and times.
if exists("b:current_syntax")
  finish
endif
syntax match paiTitle /\%1l.*/
syntax match paiFolder /^\S[^ ]*\/\ze\( \|$\)/
syntax match paiDetails /\s\+\d[0-9.]* \a\?B\s.*$/
highlight default link paiTitle Title
highlight default link paiFolder Directory
highlight default link paiDetails Comment
let b:current_syntax = "paihdfs"
