/** A small argv parser: global flags anywhere, repeatable flags, `--flag=value`, `--` ends flags. */
import { suggest } from "../../lib/text.ts";

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | string[]>;
}

export interface FlagSpec {
  /** Flags that take a value. */
  values: string[];
  /** Flags that may repeat (collected into arrays). */
  repeat: string[];
  /**
   * Every flag the command accepts (global ones included). A flag outside it is a usage error with a
   * "did you mean" — a typo such as `--dryrun` must never run the command as if it were absent. Absent:
   * flags are not checked (a plugin command that declares no `flags`).
   */
  known?: ReadonlySet<string>;
}

/** Short spellings: `-h` = `--help`, `-v` = `--version`. */
const SHORT: Record<string, string> = { h: "help", v: "version" };

export function parseArgs(argv: string[], spec: FlagSpec): ParsedArgs {
  const out: ParsedArgs = { positionals: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--") && a.length > 2) {
      let name = a.slice(2);
      let value: string | boolean = true;
      const eq = name.indexOf("=");
      if (eq >= 0) {
        value = name.slice(eq + 1);
        name = name.slice(0, eq);
      }
      checkKnown(name, spec);
      if (eq < 0 && spec.values.includes(name)) {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
        value = argv[++i]!;
      } else if (eq >= 0 && spec.known && !spec.values.includes(name)) throw new UsageError(`--${name} takes no value`);
      if (spec.repeat.includes(name)) out.flags[name] = [...((out.flags[name] as string[]) ?? []), String(value)];
      else out.flags[name] = value;
    } else if (/^-[A-Za-z]$/.test(a) && (SHORT[a[1]!] || spec.known)) {
      const long = SHORT[a[1]!];
      if (!long) throw new UsageError(`unknown flag ${a}${spec.known ? suggest(a.slice(1), spec.known).replace('"', '"--') : ""}`);
      out.flags[long] = true;
    } else out.positionals.push(a);
  }
  return out;
}

function checkKnown(name: string, spec: FlagSpec): void {
  if (!spec.known || spec.known.has(name)) return;
  const hint = suggest(name, spec.known).replace('"', '"--');
  throw new UsageError(`unknown flag --${name}${hint}`);
}

export class UsageError extends Error {}
