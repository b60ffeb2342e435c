" :PaiStorages: the storages of a cluster, its default one (*) and the read-only ones.
if exists("b:current_syntax")
  finish
endif
syntax match paiTitle /\%1l.*/
syntax match paiColumns /\%2l.*/
syntax match paiDefault /^\* \S\+/
syntax match paiReadOnly /\(read-only\|只读\)/
highlight default link paiTitle Title
highlight default link paiColumns Comment
highlight default link paiDefault Special
highlight default link paiReadOnly WarningMsg
let b:current_syntax = "paistorages"
