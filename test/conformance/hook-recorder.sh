#!/bin/sh
# The recording hook of the conformance cases:
#   sh hook-recorder.sh LOGDIR LABEL [EXIT [STDOUT_B64 [STDERR_B64]]]
# Saves its stdin, environment and label under LOGDIR (one file set per run, named by time, so parallel hooks never
# interleave), then prints the given stdout/stderr and exits with EXIT. A shell script, not node: a case runs dozens
# of hooks and the replay must stay fast. Claude Code (scripts/conformance/record.mjs) and toolhost
# (test/conformance/replay.test.ts) run the same file; test/conformance/layout.mjs reads the runs back.
d="$1"
f="$d/$(date +%s%N)-$$"
mkdir -p "$d"
printf '%s' "$2" > "$f.label"
cat > "$f.stdin"
env -0 > "$f.env"
[ -n "$4" ] && printf '%s' "$4" | base64 -d
[ -n "$5" ] && printf '%s' "$5" | base64 -d >&2
exit "${3:-0}"
