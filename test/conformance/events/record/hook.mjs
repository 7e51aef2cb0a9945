// Recording hook: saves stdin + env, answers per behaviour.json (event -> {stdout, stderr, exit}).
import fs from 'node:fs';
import path from 'node:path';
const dir = process.env.REC_DIR;
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  let j = {}; try { j = JSON.parse(input); } catch {}
  const ev = j.hook_event_name || 'unknown';
  const n = fs.readdirSync(dir).filter((f) => f.startsWith(ev + '-')).length;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^CLAUDE|^TOOLHOST/.test(k)));
  let transcript = null;
  try { if (j.transcript_path) transcript = fs.readFileSync(j.transcript_path, 'utf8'); } catch (e) { transcript = 'ERR ' + e.code; }
  fs.writeFileSync(path.join(dir, `${ev}-${n}.json`), JSON.stringify({ stdin: j, env, transcriptAtHook: transcript }, null, 2));
  let beh = {}; try { beh = JSON.parse(fs.readFileSync(path.join(dir, 'behaviour.json'), 'utf8')); } catch {}
  const b = beh[ev + '#' + n] ?? beh[ev] ?? {};
  if (b.stdout) process.stdout.write(typeof b.stdout === 'string' ? b.stdout : JSON.stringify(b.stdout));
  if (b.stderr) process.stderr.write(b.stderr);
  process.exit(b.exit ?? 0);
});
