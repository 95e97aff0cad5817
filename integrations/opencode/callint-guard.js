// callint guard for opencode: judges each call of the voicehook MCP
// server's tools before opencode makes it, and stops the ones that break
// a rule of the room (the model reads why, and rephrases or stays silent).
//
// Install: `callint guard install --client opencode` (copies this file to
// .opencode/plugins/, or with --user to ~/.config/opencode/plugins/), or
// copy it there by hand. It runs `callint guard --client opencode`, which
// must be on PATH (or set CALLINT to the binary's path).
//
// opencode names an MCP server's tool `<server>_<tool>`: only tools whose
// name ends in one of voicehook's functions are handed to callint; callint
// tells the voicehook server from the others. The session's messages so far
// (as opencode's client lists them) go with the call, so that callint
// judges it against the call as `callint check` would. Whatever goes wrong running
// callint, the call goes through: the guard never stands in the way by
// failing.

const FUNCTIONS = ["create_call", "join", "next", "say", "status", "activity", "decide", "show", "share", "notice", "leave"]

function mayBeVoicehook(tool) {
  return typeof tool === "string" && FUNCTIONS.some((f) => tool.endsWith("_" + f))
}

async function sessionMessages(client, id) {
  if (!client || !client.session || typeof client.session.messages !== "function") return undefined
  try {
    const res = await client.session.messages({ path: { id } })
    const list = Array.isArray(res) ? res : res && res.data
    return Array.isArray(list) ? list : undefined
  } catch {
    return undefined
  }
}

export const CallintGuard = async ({ $, client, directory }) => {
  const callint = process.env.CALLINT || "callint"
  return {
    "tool.execute.before": async (input, output) => {
      if (!mayBeVoicehook(input.tool)) return
      const hook = JSON.stringify({
        hook_event_name: "tool.execute.before",
        tool: input.tool,
        session_id: input.sessionID,
        call_id: input.callID,
        tool_input: output.args ?? {},
        cwd: directory,
        messages: await sessionMessages(client, input.sessionID),
      })
      let answer
      try {
        const run = await $`${callint} guard --client opencode < ${new Response(hook)}`.quiet().nothrow()
        answer = run.stdout.toString().trim()
      } catch {
        return
      }
      if (!answer) return
      let decision
      try {
        decision = JSON.parse(answer)
      } catch {
        return
      }
      if (decision && decision.decision === "deny") {
        throw new Error(String(decision.reason || "callint guard denied this call"))
      }
    },
  }
}
