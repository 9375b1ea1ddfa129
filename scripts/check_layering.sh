#!/usr/bin/env bash
# Checks that the sources respect the layer order written in docs/architecture.md: every
# `#include "folder/file.h"` of a source file must name a file of its own layer or of a lower one,
# and no two folders may include each other, directly or around a cycle (sub-folders count as
# folders: search/ and search/spaces/ must not include each other).
#
# The order is the fenced block marked `layers` in ROOT/docs/architecture.md: one layer per line,
# lowest first; a line may name several folders (one layer) and end in a # comment. A folder that is
# not listed belongs to the layer of its nearest listed parent (costmodels/torch/ to costmodels/).
# Includes without a folder ("lower_test_util.h") and of files outside the tree (system and
# third-party headers) are not checked.
#
# Usage: check_layering.sh [ROOT]   (default: this repository). Exit status 0 when the tree
# follows the order; 1 with one line per problem otherwise; 2 when the order cannot be read.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
doc=$root/docs/architecture.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$doc" ]; then
  echo "check_layering: $doc not found; the layer order is written there" >&2
  exit 2
fi
# folder rank, lowest layer first.
awk '/^```layers/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { sub(/#.*/, ""); if (NF == 0) next; rank++; for (i = 1; i <= NF; i++) print $i, rank }' \
  "$doc" > "$work/layers"
if [ ! -s "$work/layers" ]; then
  echo "check_layering: $doc has no \`\`\`layers block listing the layers, lowest first" >&2
  exit 2
fi

# Every file of the tree (paths relative to ROOT), leaving out build trees and hidden folders.
(cd "$root" && find . -mindepth 1 \( -name '.*' -o -path './build*' \) -prune -o -type f -print | sed 's|^\./||') \
  > "$work/files"
grep -E '\.(h|hpp|cpp|cc)$' "$work/files" > "$work/sources" || true

# Prints the problems (one line each) and the include edges between folders ("from to") into
# $work/edges.
(cd "$root" && xargs -a "$work/sources" -d '\n' awk -v layers="$work/layers" -v files="$work/files" \
    -v edges="$work/edges" '
  function folder(path) { return path ~ /\// ? substr(path, 1, match(path, /\/[^\/]*$/) - 1) : "." }
  # The rank of a folder: its own, or its nearest listed parent'"'"'s; 0 when none is listed.
  function rank_of(dir,    d) {
    for (d = dir; d != "."; d = folder(d)) if (d in rank) return rank[d]
    return 0
  }
  BEGIN {
    while ((getline line < layers) > 0) { split(line, f, " "); rank[f[1]] = f[2] }
    while ((getline line < files) > 0) exists[line] = 1
  }
  FNR == 1 {
    from = folder(FILENAME)
    from_rank = rank_of(from)
    if (from_rank == 0 && !(from in reported)) {
      reported[from] = 1
      printf "%s: folder %s/ is in no layer: add it (or a parent) to the layers block of docs/architecture.md\n", FILENAME, from
    }
  }
  /^[ \t]*#[ \t]*include[ \t]*"[^"]*\/[^"]*"/ {
    included = $0
    sub(/^[^"]*"/, "", included); sub(/".*/, "", included)
    if (!(included in exists)) {
      relative = from "/" included
      if (!(relative in exists)) next  # not a file of this tree
      included = relative
    }
    to = folder(included)
    if (to == from) next
    print from, to > edges
    to_rank = rank_of(to)
    if (from_rank > 0 && to_rank > from_rank)
      printf "%s:%d: includes \"%s\", but %s/ (layer %d) is above %s/ (layer %d) in docs/architecture.md: move what both need down, or the code up\n", \
             FILENAME, FNR, included, to, to_rank, from, from_rank
  }
' ) > "$work/problems"
touch "$work/edges"

# Cycles between folders: tsort names the folders of each cycle it finds.
sort -u "$work/edges" > "$work/folder_edges"
if ! tsort "$work/folder_edges" > /dev/null 2> "$work/tsort"; then
  awk '/input contains a loop/ { if (members != "") print members; members = ""; next }
       { sub(/^tsort: /, ""); members = members (members == "" ? "" : " ") $0 }
       END { if (members != "") print members }' "$work/tsort" |
    while read -r members; do
      # The include edges among the folders of the cycle, so the message says what to change.
      among=$(awk -v m=" $members " 'index(m, " " $1 " ") && index(m, " " $2 " ") { printf "%s%s -> %s", sep, $1, $2; sep = ", " }' \
        "$work/folder_edges")
      echo "cycle between folders ${members// /, }: $among; move what they share into the lowest of them"
    done >> "$work/problems"
fi

if [ -s "$work/problems" ]; then
  cat "$work/problems"
  echo "check_layering: $(wc -l < "$work/problems") problem(s); the layer order is in docs/architecture.md"
  exit 1
fi
echo "check_layering: $(wc -l < "$work/sources") source files follow the layer order of docs/architecture.md"
