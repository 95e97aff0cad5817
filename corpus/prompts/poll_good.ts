// Polls the call and hands every line to the agent, timeouts included:
// other agents speak while the human is silent, and their lines arrive in
// `timeout` events.
import { next } from "./voicehook";

function linesOf(ev: VoicehookEvent): Line[] {
  return [...(ev.operators_said ?? []), ...(ev.agent_said ?? [])];
}

export async function poll(onLine: (l: Line) => void, onEvent: (e: VoicehookEvent) => void) {
  for (;;) {
    const ev = await next({ timeout: 50_000 });
    linesOf(ev).forEach(onLine);
    if (ev.type === "timeout") continue; // its lines are read above
    onEvent(ev);
  }
}
