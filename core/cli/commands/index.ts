/** The CLI's commands, in the order `toolhost --help` lists them. */
import type { Command } from "../context.ts";
import { tools } from "./tools.ts";
import { explain } from "./explain.ts";
import { check } from "./check.ts";
import { call } from "./call.ts";
import { searchCommand } from "./search.ts";
import { serve } from "./serve.ts";
import { watch } from "./watch.ts";
import { hooks } from "./hooks.ts";
import { agents } from "./agents.ts";

export const commands: Command[] = [tools, explain, call, check, searchCommand, serve, watch, hooks, agents];
