" :PaiClusters: the default profile and login states; an open cluster's usage bars.
if exists("b:current_syntax")
  finish
endif
syntax match paiTitle /\%1l.*/
syntax match paiColumns /\%2l.*/
syntax match paiDefault /^\* \S\+/
syntax match paiLoggedIn /\(logged in\|running\|已登录\|运行中\)/
syntax match paiNoLogin /\(no login\|stopped\|未登录\|已停止\)/
syntax match paiBarUsed /█\+/
syntax match paiBarFree /░\+/
syntax match paiNotYours /\(not yours to submit to\|您无权提交到此\)/
highlight default link paiBarUsed Special
highlight default link paiBarFree Comment
highlight default link paiNotYours WarningMsg
highlight default link paiTitle Title
highlight default link paiColumns Comment
highlight default link paiDefault Special
highlight default link paiLoggedIn String
highlight default link paiNoLogin WarningMsg
let b:current_syntax = "paiclusters"
