/** A small argv parser: global flags anywhere, repeatable flags, `--flag=value`, `--` ends flags. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | string[]>;
}

export interface FlagSpec {
  /** Flags that take a value. */
  values: string[];
  /** Flags that may repeat (collected into arrays). */
  repeat: string[];
}

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
      } else if (spec.values.includes(name)) {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
        value = argv[++i]!;
      }
      if (spec.repeat.includes(name)) out.flags[name] = [...((out.flags[name] as string[]) ?? []), String(value)];
      else out.flags[name] = value;
    } else if (a === "-h") out.flags.help = true;
    else out.positionals.push(a);
  }
  return out;
}

export class UsageError extends Error {}
