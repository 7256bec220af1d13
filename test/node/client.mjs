// A real MCP host for deskpilot's tests: the official TypeScript SDK client
// connects to `deskpilot mcp` (stdio or streamable HTTP) and runs the steps
// of a plan, printing one JSON line per step on stdout. The Go tests assert
// on what the steps did on the private display and on these lines.
//
// The plan is JSON in argv[2]:
//   { "transport": "stdio", "command": "...", "args": [...], "env": {...} }
//   { "transport": "http", "url": "http://127.0.0.1:PORT/", "token": "..." }
// plus "elicit": "allow" | "deny" | "answer:TEXT" (omitted: no elicitation
// capability; "elicitModes": ["url"] declares other modes than form), "imageData": true (images carry "data", base64, too) and "steps": [
//   {"op": "list"}                                   -> {"tools": [names], "schemas": {...}}
//   {"op": "call", "name": N, "args": {...}}         -> {"isError", "text", "images": [{mime, bytes}], "structured"}
//   {"op": "clickFound", "text": T}                  -> find_text T, then click at the point it reported
//   {"op": "cancelAfter", "name": N, "args": {...}, "progress": K, "ms": M}
//                                                    -> the call, aborted after K progress notifications (or M ms)
//   {"op": "closeAfter", "name": N, "args": {...}, "progress": K}
//                                                    -> the call, the client closed after K progress notifications
//   {"op": "resources"}                              -> {"uris": [...], "trace": bool, "screenshot": bytes}
//   {"op": "sleep", "ms": M}
//   {"op": "protocol"}                               -> {"offered": the client's newest revision, "negotiated": the one the server chose}
// ]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

import { answer } from "./answer.mjs";

const plan = JSON.parse(process.argv[2]);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// "elicitModes": ["url"] declares other elicitation modes than form.
const modes = Object.fromEntries((plan.elicitModes ?? ["form"]).map((m) => [m, {}]));
const capabilities = plan.elicit ? { elicitation: modes } : {};
const client = new Client({ name: "deskpilot-test-host", version: "1.0.0" }, { capabilities });
const elicited = [];
if (plan.elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicited.push(req.params.message);
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

// The revision the server chose, as the client hands it to its transport.
let negotiated = null;
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => {
  negotiated = v;
  setVersion?.(v);
};

function summary(res) {
  const text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  const images = (res.content ?? []).filter((c) => c.type === "image").map((c) => ({ mime: c.mimeType, bytes: Buffer.from(c.data, "base64").length, ...(plan.imageData ? { data: c.data } : {}) }));
  return { isError: !!res.isError, text, images, structured: res.structuredContent ?? null };
}

const timeout = { timeout: 300000 };

try {
  await client.connect(transport);
  for (const step of plan.steps) {
    try {
      switch (step.op) {
        case "list": {
          const r = await client.listTools();
          const schemas = {};
          for (const t of r.tools) schemas[t.name] = t.inputSchema;
          out({ op: "list", tools: r.tools.map((t) => t.name), schemas });
          break;
        }
        case "call": {
          const r = await client.callTool({ name: step.name, arguments: step.args ?? {} }, undefined, timeout);
          out({ op: "call", name: step.name, ...summary(r), elicited: elicited.splice(0) });
          break;
        }
        case "clickFound": {
          const f = summary(await client.callTool({ name: "find_text", arguments: { text: step.text } }, undefined, timeout));
          const m = /found: "[^"]*"(?: \([^)]*\))? at \((\d+), (\d+)\)/.exec(f.text);
          if (!m) {
            out({ op: "clickFound", error: "find_text reported no point", text: f.text });
            break;
          }
          const x = Number(m[1]), y = Number(m[2]);
          const c = summary(await client.callTool({ name: "click", arguments: { x, y } }, undefined, timeout));
          out({ op: "clickFound", x, y, ...c });
          break;
        }
        case "cancelAfter": {
          const ac = new AbortController();
          const progress = [];
          let cancelledAt = null;
          if (step.ms) {
            setTimeout(() => {
              cancelledAt = Date.now();
              ac.abort("the test host cancels");
            }, step.ms);
          }
          try {
            await client.callTool({ name: step.name, arguments: step.args ?? {} }, undefined, {
              signal: ac.signal, timeout: 300000,
              onprogress: (p) => {
                progress.push(p.message ?? "");
                if (step.progress && progress.length >= step.progress && !ac.signal.aborted) {
                  cancelledAt = Date.now();
                  ac.abort("the test host cancels");
                }
              },
            });
            out({ op: "cancelAfter", completed: true, progress });
          } catch (e) {
            out({ op: "cancelAfter", cancelled: ac.signal.aborted, error: String(e), progress, cancelledAt });
          }
          break;
        }
        case "closeAfter": {
          const progress = [];
          const closed = new Promise((resolve) => {
            client.callTool({ name: step.name, arguments: step.args ?? {} }, undefined, {
              timeout: 300000,
              onprogress: async (p) => {
                progress.push(p.message ?? "");
                if (progress.length === step.progress) {
                  await client.close();
                  resolve();
                }
              },
            }).catch(() => {});
          });
          await closed;
          out({ op: "closeAfter", closed: true, progress });
          process.exit(0);
        }
        case "resources": {
          const r = await client.listResources();
          const uris = r.resources.map((x) => x.uri);
          let trace = "", screenshot = 0;
          for (const u of uris) {
            const c = await client.readResource({ uri: u });
            for (const x of c.contents) {
              if (x.text) trace = x.text;
              if (x.blob) screenshot = Buffer.from(x.blob, "base64").length;
            }
          }
          out({ op: "resources", uris, trace, screenshot });
          break;
        }
        case "protocol":
          out({ op: "protocol", offered: LATEST_PROTOCOL_VERSION, negotiated });
          break;
        case "sleep":
          await new Promise((r) => setTimeout(r, step.ms));
          out({ op: "sleep" });
          break;
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
