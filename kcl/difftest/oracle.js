#!/usr/bin/env node
// oracle.js runs one KCL program through the official engine (the npm add-on
// @kcl-lang/lib-linux-x64-gnu 0.12.1) for the differential test.
//
//   node oracle.js <node_modules dir> '<request JSON>'
//
// The request is {"workDir": "...", "files": ["main.k"], "args": [{"name": "k", "value": "<json>"}],
// "sortKeys": false, "disableNone": false}; the reply on stdout is
// {"yaml": "...", "log": "...", "error": "..."}.
'use strict';
const path = require('path');

const [nodeModules, reqText] = process.argv.slice(2);
const req = JSON.parse(reqText);
const kcl = require(path.join(nodeModules, '@kcl-lang/lib-linux-x64-gnu'));

const reply = { yaml: '', log: '', error: '' };
try {
  const args = (req.args || []).map((a) => ({ name: a.name, value: a.value }));
  const r = kcl.execProgram(new kcl.ExecProgramArgs(
    req.files, null, req.workDir, args, [], false, !!req.disableNone, 0, 0, !!req.sortKeys,
    [], false, [], false));
  reply.yaml = r.yamlResult || '';
  reply.log = r.logMessage || '';
  reply.error = r.errMessage || '';
} catch (e) {
  reply.error = String((e && e.message) || e);
}
process.stdout.write(JSON.stringify(reply));
