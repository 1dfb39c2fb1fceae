module coffer.local/gopher-lua-health

go 1.24.0

require github.com/yuin/gopher-lua v1.1.1
