// The answer the test hosts (client.mjs, client2026.mjs) give to an
// elicitation, from the plan's "elicit": "deny" declines; "answer:TEXT"
// fills a form's "answer" field with TEXT; anything else accepts with every
// field of the form true.
export function answer(elicit, requestedSchema) {
  const props = Object.keys(requestedSchema?.properties ?? {});
  if (elicit === "deny") return { action: "decline" };
  if (elicit.startsWith("answer:") && props.includes("answer")) {
    return { action: "accept", content: { answer: elicit.slice(7) } };
  }
  const content = {};
  for (const p of props) content[p] = true;
  return { action: "accept", content };
}
