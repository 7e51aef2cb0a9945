/** The CLI's commands, in the order `toolhost --help` lists them. */
import type { Command } from "../context.ts";
import { tools } from "./tools.ts";
import { explain } from "./explain.ts";
import { check } from "./check.ts";
import { call } from "./call.ts";

/** Core commands; plugins add theirs with `cliCommands` in their manifests (main.ts reads them). */
export const commands: Command[] = [tools, explain, call, check];
