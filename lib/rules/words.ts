/**
 * Leaf types and tables shared by the shell parser, the segment builder, the command tables and the
 * Bash pattern compiler (kept here so none of those imports another in a circle).
 */

export interface ShellWord {
  /** Unquoted value for literal words; the source text for words with expansions. */
  value: string;
  /** Source text, as written. */
  raw: string;
  /** Contains `$VAR`, `$()`, backticks, arithmetic or process substitution. */
  dynamic: boolean;
  /** Some part was quoted (globs in it are literal). */
  quoted: boolean;
  /**
   * The word's parts, for static expansion (expand.ts): literal text, `$NAME`/`${NAME}`, and command
   * substitutions by their source. Only set on dynamic words; an `other` part cannot be expanded.
   */
  parts?: WordPart[];
  /** Starts with an unquoted `~` (tilde expansion applies). */
  tilde?: boolean;
}

export type WordPart = { t: "lit"; v: string } | { t: "param"; name: string } | { t: "subst"; src: string; proc?: boolean } | { t: "other" };

export interface PathRef {
  /** The path as written (tilde and globs unexpanded). */
  path: string;
  /** Directory it is relative to (the effective working directory after `cd`). */
  base: string;
  /** Contains an expansion we cannot resolve statically. */
  dynamic: boolean;
  /** Unquoted glob characters. */
  glob: boolean;
}

/** Long-option synonyms of short flags, for flag-set matching of deny rules (`rm --recursive --force` ≡ `rm -rf`). */
export const LONG_FLAGS: Record<string, Record<string, string>> = {
  rm: { "--recursive": "r", "--force": "f", R: "r", "--dir": "d" },
  cp: { "--recursive": "r", R: "r", "--force": "f" },
  chmod: { "--recursive": "R" },
  chown: { "--recursive": "R" },
  "git push": { "--force": "f" },
  "git clean": { "--force": "f" },
  "git reset": {},
};

export interface ShellRedirect {
  /** `>`, `>>`, `<`, `<>`, `>|`, `&>`, `&>>`, `<&`, `>&`, `<<`, `<<-`, `<<<`. */
  op: string;
  fd?: string;
  target: ShellWord;
}

export interface SimpleCommand {
  /** Leading `NAME=value` assignments (names). */
  assigns: Array<{ name: string; raw: string }>;
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** `export`, `declare`, `local` … statements: words are the variant and the assignments. */
  decl?: boolean;
  /**
   * What the command reads on its standard input when that is a literal: a here-string, a here-doc,
   * or the output of a literal `echo`/`printf` piped into it (`echo 'rm -rf x' | sh`).
   */
  stdin?: string;
}

export interface ShellAnalysis {
  ok: boolean;
  error?: string;
  commands: SimpleCommand[];
  /** Redirections on compound statements (`{ …; } > f`, `(…) < f`). */
  redirects: ShellRedirect[];
}
