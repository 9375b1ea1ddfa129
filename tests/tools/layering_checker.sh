#!/usr/bin/env bash
# Checks the layering checker (scripts/check_layering.sh) on small trees planted in a temporary
# directory: a tree that follows its order passes; an upward include, a cycle between a folder and
# its sub-folder, a folder in no layer and a missing order each fail with a message naming the file
# and the folders.
# Usage: layering_checker.sh path/to/check_layering.sh
set -uo pipefail
checker=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/script_checks.sh"

# plant TREE FILE LINE...: writes the lines into TREE/FILE.
plant() {
  local tree=$1 file=$2; shift 2
  mkdir -p "$(dirname "$work/$tree/$file")"
  printf '%s\n' "$@" > "$work/$tree/$file"
}

# A clean tree: base < core < core/sub < app (app and tools share the top layer).
clean_tree() {
  local tree=$1
  plant "$tree" docs/architecture.md '# Layers' '```layers' 'base   # the bottom' 'core' 'core/sub' 'app tools' '```'
  plant "$tree" base/util.h '#pragma once' '#include <vector>' '#include "system/header.h"'
  plant "$tree" core/ir.h '#pragma once' '#include "base/util.h"'
  plant "$tree" core/ir.cpp '#include "core/ir.h"' '#include "local.h"'
  plant "$tree" core/sub/pass.h '#include "core/ir.h"' '#include "base/util.h"'
  plant "$tree" core/sub/detail/impl.cpp '#include "core/sub/pass.h"'  # an unlisted folder: core/sub's layer
  plant "$tree" app/main.cpp '#include "core/sub/pass.h"' '#include "tools/cli.h"'
  plant "$tree" tools/cli.h '#include "core/ir.h"'
  plant "$tree" build/generated.h '#include "app/main.cpp"'  # build trees are not sources
}

# expect STATUS TREE "message part"...: the checker's exit status and output.
expect() {
  local status=$1 tree=$2; shift 2
  local out got
  out=$(bash "$checker" "$work/$tree" 2>&1); got=$?
  if [ "$got" -ne "$status" ]; then fail "$tree: exit status $got, want $status: $out"; return; fi
  local part
  for part in "$@"; do
    if ! grep -qF -- "$part" <<< "$out"; then fail "$tree: output lacks '$part': $out"; return; fi
  done
  pass
}

clean_tree clean
expect 0 clean "7 source files follow the layer order"

# A relative include ("sub/pass.h" from core/) is the file it names.
clean_tree relative
plant relative core/ir.cpp '#include "core/ir.h"' '#include "sub/pass.h"'
expect 1 relative 'core/ir.cpp:2: includes "core/sub/pass.h", but core/sub/ (layer 3) is above core/ (layer 2)'

clean_tree upward
plant upward base/util.h '#pragma once' '#include "core/ir.h"'
expect 1 upward 'base/util.h:2: includes "core/ir.h", but core/ (layer 2) is above base/ (layer 1)' \
  "cycle between folders"

# Same layer, both ways: not upward, but a cycle.
clean_tree same_layer_cycle
plant same_layer_cycle tools/cli.h '#include "app/main.h"'
plant same_layer_cycle app/main.h '#pragma once'
expect 1 same_layer_cycle "cycle between folders" "app -> tools" "tools -> app"

# A folder and its sub-folder, the second listed as its parent's layer (as search/ and search/spaces/).
clean_tree sub_folder_cycle
plant sub_folder_cycle docs/architecture.md '```layers' 'base' 'core core/sub' 'app tools' '```'
plant sub_folder_cycle core/ir.h '#pragma once' '#include "core/sub/pass.h"'
expect 1 sub_folder_cycle "cycle between folders" "core -> core/sub" "core/sub -> core"

clean_tree unlisted
plant unlisted extra/thing.h '#include "base/util.h"'
expect 1 unlisted "extra/thing.h: folder extra/ is in no layer"

clean_tree no_order
plant no_order docs/architecture.md '# Layers' 'none written'
expect 2 no_order 'no ```layers block'

finish
