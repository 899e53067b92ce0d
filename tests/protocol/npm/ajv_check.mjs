// Compile protocol/tilehall.schema.json with Ajv 8 (JSON Schema 2020-12) in its full strict
// mode, and judge frames with it. Usage: node ajv_check.mjs SCHEMA [FRAMES]
// FRAMES is a JSON list of [side, frame]; the output (one JSON object) carries every
// warning Ajv logged and, for each frame, whether it is valid.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const [schemaPath, framesPath] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
const warnings = [];
const logger = {
  log: () => {},
  warn: (...args) => warnings.push(args.join(" ")),
  error: (...args) => warnings.push(args.join(" ")),
};
// strict: true turns every strict check (strictSchema, strictNumbers, strictTypes,
// strictTuples, strictRequired) into an error; the logger catches anything logged besides.
const ajv = new Ajv2020({ strict: true, allErrors: true, logger });
let error = null;
const verdicts = [];
try {
  ajv.addSchema(schema);
  const sides = {};
  for (const side of ["client", "server"]) {
    sides[side] = ajv.getSchema(`${schema.$id}#/$defs/${side}`);
  }
  const whole = ajv.getSchema(schema.$id);
  if (framesPath) {
    for (const [side, frame] of JSON.parse(readFileSync(framesPath, "utf8"))) {
      verdicts.push(sides[side](frame) && whole(frame));
    }
  }
} catch (e) {
  error = String(e.message || e);
}
process.stdout.write(JSON.stringify({ error, warnings, verdicts }) + "\n");
