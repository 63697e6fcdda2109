#!/usr/bin/env bash
# The preservation audit as Megatron-LM's nightly-sync skill describes it (issue 12):
# like preservation_hook.sh, but
#   - sets, not multisets: each side's lines are `sort -u`;
#   - only code files: *.py *.md *.yaml *.yml *.toml *.sh *.cpp *.cu *.h;
#   - the paths named in $SKIP_PATHS (one per line: the override-from-main list
#     and the dependency files) and files gone at the head are skipped;
#   - a line counts only if it holds a letter, a digit or an underscore.
#
#   code_files_hook.sh DEV MAIN HEAD
#
# Output as preservation_hook.sh's: a file's path, then its lines with a TAB in front.
set -euo pipefail
export LC_ALL=C.UTF-8

dev=$1
main=$2
head=$3
skip=${SKIP_PATHS:-}

blob_lines() {  # the sorted, unique lines of <rev>:<path>, nothing if absent
    git show "$1:$2" 2>/dev/null | sort -u || true
}

git diff --name-only -z "$dev" "$head" -- \
    '*.py' '*.md' '*.yaml' '*.yml' '*.toml' '*.sh' '*.cpp' '*.cu' '*.h' |
while IFS= read -r -d '' path; do
    if [[ -n $skip ]] && grep -qxF -- "$path" <<<"$skip"; then
        continue
    fi
    git cat-file -e "$head:$path" 2>/dev/null || continue
    found=$(
        comm -23 <(blob_lines "$dev" "$path") <(blob_lines "$main" "$path") |
        comm -23 - <(blob_lines "$head" "$path") |
        { grep -E '[[:alnum:]_]' || true; } |
        sed 's/^/\t/'
        printf x
    )
    found=${found%x}
    if [[ -n $found ]]; then
        printf '%s\n%s' "$path" "$found"
    fi
done
