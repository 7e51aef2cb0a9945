#!/bin/bash
# usage: run-case.sh NAME PORT 'script-json' 'behaviour-json' [prompt] [extra claude args...]
set -u
NAME=$1; PORT=$2; SCRIPT=$3; BEH=$4; PROMPT=${5:-go}; shift 5 || shift $#
O=${ORACLE:-/tmp/confevents-oracle}/out/$NAME; rm -rf $O; mkdir -p $O/rec $O/home/.claude $O/proj
echo "$SCRIPT" > $O/script.json; echo "$BEH" > $O/rec/behaviour.json
EVENTS="SessionStart UserPromptSubmit PreToolUse PostToolUse PostToolUseFailure PostToolBatch Stop SubagentStop SessionEnd Notification PreCompact PermissionRequest"
node -e '
const ev = process.argv[1].split(" "); const hooks = {};
for (const e of ev) hooks[e] = [{ matcher: "*", hooks: [{ type: "command", command: "node ${ORACLE:-/tmp/confevents-oracle}/hook.mjs" }] }];
require("fs").writeFileSync(process.argv[2], JSON.stringify({ hooks, permissions: { allow: ["Bash(touch *)", "Bash(echo *)", "Write", "Read"] } }, null, 2));
' "$EVENTS" $O/home/.claude/settings.json
node -e 'const p=process.argv[1]; require("fs").writeFileSync(p+"/home/.claude.json", JSON.stringify({projects:{[p+"/proj"]:{hasTrustDialogAccepted:true}}}))' $O
node ${ORACLE:-/tmp/confevents-oracle}/fake-anthropic.mjs $PORT $O/requests.jsonl $O/script.json & FP=$!
sleep 0.5
cd $O/proj
REC_DIR=$O/rec ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT ANTHROPIC_API_KEY=sk-ant-dummy HOME=$O/home \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
  timeout 120 /work/cache/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude -p "$PROMPT" --output-format stream-json --verbose "$@" > $O/stream.jsonl 2> $O/stderr.txt
echo "exit $?" > $O/exit.txt
kill $FP
find $O/home/.claude/projects -name '*.jsonl' -exec cp {} $O/transcript.jsonl \; 2>/dev/null
ls $O/rec $O/proj; cat $O/exit.txt
