// Parse an AsyncAPI document with @asyncapi/parser (what `asyncapi validate` runs) and print
// every diagnostic as one JSON object: {parsed, diagnostics: [{severity, code, message, path}]}.
// Severity 0 is an error, 1 a warning, 2 information, 3 a hint.
// Usage: node asyncapi_check.mjs DOCUMENT
import { Parser, fromFile } from "@asyncapi/parser";

const parser = new Parser();
const { document, diagnostics } = await fromFile(parser, process.argv[2]).parse();
const out = diagnostics.map((d) => ({
  severity: d.severity,
  code: String(d.code),
  message: d.message,
  path: d.path,
}));
process.stdout.write(JSON.stringify({ parsed: document !== undefined, diagnostics: out }) + "\n");
