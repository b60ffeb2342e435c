" :PaiJobs and a job's details: headers and job states.
if exists("b:current_syntax")
  finish
endif
syntax match paiTitle /\%1l.*/
syntax match paiColumns /\%2l.*/
syntax keyword paiSucceeded SUCCEEDED
syntax keyword paiFailed FAILED STOPPED
syntax keyword paiRunning RUNNING WAITING STOPPING UNKNOWN
highlight default link paiTitle Title
highlight default link paiColumns Comment
highlight default link paiSucceeded String
highlight default link paiFailed ErrorMsg
highlight default link paiRunning Function
let b:current_syntax = "paijobs"
