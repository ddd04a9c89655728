#!/usr/bin/env bash
# Opens FILE in a headless Neovim with `ptl lsp` attached and prints the diagnostics it
# shows and the hover at the last occurrence of WORD:
#   editors/nvim/check.sh FILE WORD [PTL_BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
file="$1"; word="${2:-}"; ptl="${3:-ptl}"
PTL_HOVER="$word" nvim --headless -u NONE -i NONE \
  --cmd "set rtp^=$here" --cmd "let g:ptl_command = '$ptl'" \
  --cmd "lua package.path = '$here/?.lua;' .. package.path" \
  -c "luafile $here/check.lua" "$file"
