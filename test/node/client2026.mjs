// A real MCP host on protocol revision 2026-07-28, for deskpilot's tests: the
// official TypeScript SDK v2 client (@modelcontextprotocol/client) connects
// to `deskpilot mcp` and runs the steps of a plan, one JSON line per step on
// stdout, as client.mjs does for the v1 SDK. On this revision a server may no
// longer send a request in the middle of a call: it answers the call with
// `input_required`, the client asks its person through the same elicitation
// handler and calls again with the answers (multi round-trip requests).
//
// The plan is JSON in argv[2]:
//   { "transport": "stdio", "command": "...", "args": [...], "env": {...} }
//   { "transport": "http", "url": "http://127.0.0.1:PORT/", "token": "..." }
// plus "negotiation": "auto" (default: probe with server/discover, fall back to
// initialize) | "2026-07-28" (pinned), "elicit": "allow" | "deny" |
// "answer:TEXT" (omitted: no elicitation capability), "rounds": N (the most
// input_required rounds per call; the SDK's default is 10) and "steps": [
//   {"op": "protocol"}                        -> {"offered", "negotiated"}
//   {"op": "list"}                            -> {"tools": [names]}
//   {"op": "call", "name": N, "args": {...}}  -> {"isError", "text", "elicited": [messages]}
//   {"op": "cancelAfter", "name": N, "args": {...}, "elicited": K}
//                                             -> the call, aborted once K questions were asked
// ]
import { Client, LATEST_PROTOCOL_VERSION, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

import { answer } from "./answer.mjs";

const plan = JSON.parse(process.argv[2]);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const negotiation = plan.negotiation && plan.negotiation !== "auto" ? { mode: { pin: plan.negotiation } } : { mode: "auto" };
const capabilities = plan.elicit ? { elicitation: { form: {} } } : {};
const client = new Client(
  { name: "deskpilot-test-host-2026", version: "1.0.0" },
  { capabilities, versionNegotiation: negotiation, inputRequired: { maxRounds: plan.rounds ?? 10 } },
);

const elicited = [];
let onElicit = null;
if (plan.elicit) {
  client.setRequestHandler("elicitation/create", async (req) => {
    elicited.push(req.params.message);
    onElicit?.();
    return answer(plan.elicit, req.params.requestedSchema);
  });
}

let transport;
if (plan.transport === "http") {
  const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
} else {
  transport = new StdioClientTransport({ command: plan.command, args: plan.args ?? [], env: plan.env, stderr: "inherit" });
}

function summary(res) {
  const text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  return { isError: !!res.isError, text };
}

const timeout = { timeout: 300000 };

try {
  await client.connect(transport);
  for (const step of plan.steps) {
    try {
      switch (step.op) {
        case "protocol":
          out({ op: "protocol", offered: LATEST_PROTOCOL_VERSION, negotiated: client.getNegotiatedProtocolVersion() ?? null });
          break;
        case "list": {
          const r = await client.listTools();
          out({ op: "list", tools: r.tools.map((t) => t.name) });
          break;
        }
        case "call": {
          const r = await client.callTool({ name: step.name, arguments: step.args ?? {} }, timeout);
          out({ op: "call", name: step.name, ...summary(r), elicited: elicited.splice(0) });
          break;
        }
        case "cancelAfter": {
          const ac = new AbortController();
          onElicit = () => {
            if (elicited.length >= step.elicited) ac.abort("the test host cancels");
          };
          try {
            const r = await client.callTool({ name: step.name, arguments: step.args ?? {} }, { ...timeout, signal: ac.signal });
            out({ op: "cancelAfter", completed: true, ...summary(r), elicited: elicited.splice(0) });
          } catch (e) {
            out({ op: "cancelAfter", cancelled: ac.signal.aborted, error: String(e?.message ?? e), elicited: elicited.splice(0) });
          }
          onElicit = null;
          break;
        }
        default:
          out({ op: step.op, error: "unknown op" });
      }
    } catch (e) {
      out({ op: step.op, name: step.name, error: String(e?.message ?? e), code: e?.code ?? null });
    }
  }
} catch (e) {
  out({ op: "connect", error: String(e?.message ?? e) });
} finally {
  await client.close();
}
