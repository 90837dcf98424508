// A LangGraph-style router guarded by loopguard (TypeScript, Node.js).
//
// Every transition of the graph is reported with `loopguard event --edge <from>_to_<to>`.
// loopguard counts transitions per edge since the last progress, answers whether a
// repeated query brings new information, and opens its breaker when the graph loops
// (planner -> researcher -> planner with nothing new) — before the framework's recursion
// limit crashes the run. Exit code 1 means "stop"; the JSON says why.

import { execFileSync } from "node:child_process";

interface LoopguardEvent {
  schema: 1;
  edge: string;
  count: number;
  threshold: number;
  new_information: boolean;
  asked_at_step: number | null;
  step: number;
  state: "closed" | "open" | "half_open";
  rule: string | null;
  reason: string | null;
  next_model: string | null;
}

interface StepReport {
  progress?: boolean; // new files changed, a new test result, better research
  query?: string; // what this step asks (search query, prompt)
  tokens?: number;
  cost?: number;
}

/** Reports one transition; never throws on an open breaker (exit 1), only on a broken setup. */
export function reportEdge(edge: string, step: StepReport = {}): LoopguardEvent {
  const args = ["event", "--edge", edge, "--json"];
  if (step.progress) args.push("--progress");
  if (step.query) args.push("--query", step.query);
  if (step.tokens !== undefined) args.push("--tokens", String(step.tokens));
  if (step.cost !== undefined) args.push("--cost", String(step.cost));
  try {
    return JSON.parse(execFileSync("loopguard", args, { encoding: "utf8" }));
  } catch (err: any) {
    if (err.status === 1 && err.stdout) return JSON.parse(err.stdout); // breaker open
    throw err;
  }
}

type Route = "researcher" | "verifier" | "coder" | "__end__";

/** The planner's conditional edge: loopguard has the last word. */
export function routeFromPlanner(state: { next: Route; query?: string; progress: boolean }): Route {
  if (state.next === "__end__") return "__end__";
  const ev = reportEdge(`planner_to_${state.next}`, { progress: state.progress, query: state.query });
  if (ev.state === "open") {
    console.error(`loopguard stopped the graph (${ev.rule}): ${ev.reason}`);
    return "__end__";
  }
  if (state.next === "researcher" && !ev.new_information) {
    // The same question was already researched at step ev.asked_at_step: use that answer.
    return "coder";
  }
  return state.next;
}
