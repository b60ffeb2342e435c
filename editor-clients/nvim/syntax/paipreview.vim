" An upload preview (pai://preview/<file>): its headings, sizes and warnings.
if exists("b:current_syntax")
  finish
endif
syntax match paiPreviewHeading /^\S.*:$/
syntax match paiPreviewField /^\S[^:：]*[:：]\ze /
syntax match paiPreviewSize /^\s\+\d\+\(\.\d\+\)\? \a\+\ze  /
syntax match paiPreviewWarning /^! .*/
highlight default link paiPreviewHeading Title
highlight default link paiPreviewField Identifier
highlight default link paiPreviewSize Number
highlight default link paiPreviewWarning WarningMsg
let b:current_syntax = "paipreview"
