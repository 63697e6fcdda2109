#!/usr/bin/env bash
# The reference dev-feature preservation audit, as a maintainer's pre-push hook
# runs it (DOMAIN.md): for every file the sync touched, the lines present on
# dev, absent from main and missing from the merged result.
#
#   preservation_hook.sh DEV_BASE SLICE_TIP HEAD
#
# "Touched" means: differs between the dev base and the head, and exists at
# the dev base (git's M, T and D statuses with renames off). Files the head
# added hold no dev line, so they cannot lose one.
#
# Output, for each touched file with findings: the path on a line of its own,
# then each finding line with a TAB in front. Lines are compared as bytes
# (LC_ALL=C), and comm works on sorted multisets: a line dev holds twice and
# main once is reported once if the result lacks it.
#
# syncdesk's services/audit.py must report exactly these raw findings; the
# tests run this script on the same branches to prove it.
set -euo pipefail
export LC_ALL=C

dev_base=$1
slice_tip=$2
head=$3

git diff --name-only -z --no-renames --diff-filter=MDT "$dev_base" "$head" -- |
while IFS= read -r -d '' path; do
    findings=$(
        comm -23 \
            <(git show "$dev_base:$path" 2>/dev/null | sort) \
            <(git show "$slice_tip:$path" 2>/dev/null | sort) |
        comm -23 - <(git show "$head:$path" 2>/dev/null | sort) |
        sed 's/^/\t/'
        printf x  # keep trailing newlines through the command substitution
    )
    findings=${findings%x}
    if [[ -n $findings ]]; then
        printf '%s\n%s' "$path" "$findings"
    fi
done
