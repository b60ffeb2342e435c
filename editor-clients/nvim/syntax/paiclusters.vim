" :PaiClusters: the default profile and login states.
if exists("b:current_syntax")
  finish
endif
syntax match paiTitle /\%1l.*/
syntax match paiColumns /\%2l.*/
syntax match paiDefault /^\* \S\+/
syntax match paiLoggedIn /\<\(logged in\|running\)\>/
syntax match paiNoLogin /\<\(no login\|stopped\)\>/
highlight default link paiTitle Title
highlight default link paiColumns Comment
highlight default link paiDefault Special
highlight default link paiLoggedIn String
highlight default link paiNoLogin WarningMsg
let b:current_syntax = "paiclusters"
