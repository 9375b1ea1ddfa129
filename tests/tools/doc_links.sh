#!/usr/bin/env bash
# Checks that the project's documentation links only inside the repository: every relative link of
# README.md and of the Markdown pages under docs/ and experiments/ names a file or folder that
# exists in the tree (an #anchor is not checked), and none leads out of it (../shared/...).
# Usage: doc_links.sh <repository root>
set -uo pipefail
root=$(realpath "$1")
failures=0
checked=0

while IFS= read -r page; do
  dir=$(dirname "$page")
  # Inline links [text](target); web and mail links and same-page anchors are left alone.
  while IFS= read -r target; do
    target=${target%%#*}
    [ -z "$target" ] && continue
    case $target in http://* | https://* | mailto:*) continue ;; esac
    checked=$((checked + 1))
    resolved=$(realpath -m "$dir/$target")
    if [[ $resolved != "$root" && $resolved != "$root"/* ]]; then
      echo "${page#"$root"/}: links to $target, outside the repository; link the project's own copy (docs/)"
      failures=$((failures + 1))
    elif [ ! -e "$resolved" ]; then
      echo "${page#"$root"/}: links to $target, which does not exist"
      failures=$((failures + 1))
    fi
  done < <(grep -oE '\]\([^) ]+\)' "$page" | sed -E 's/^\]\((.*)\)$/\1/')
done < <(find "$root/README.md" "$root/docs" "$root/experiments" -name '*.md' -type f)

echo "doc_links: $checked links checked, $failures broken or leading outside the repository"
[ "$failures" -eq 0 ]
