#!/usr/bin/env node
// oracle.js runs one KCL program through the official engine (the npm add-on
// @kcl-lang/lib-linux-x64-gnu 0.12.1) for the differential test.
//
//   node oracle.js <node_modules dir> '<request JSON>'
//
// The request is {"workDir": "...", "files": ["main.k"], "args": [{"name": "k", "value": "<json>"}],
// "overrides": ["a.b=1"], "sortKeys": false, "disableNone": false}; the reply on stdout is
// {"yaml": "...", "log": "...", "error": "..."}.
'use strict';
const path = require('path');

// With --serve instead of a request, it reads one request JSON a line on stdin
// and writes one reply a line on stdout, so that one node process (and one load
// of the add-on) serves a whole fuzzing run.
//
//   node oracle.js <node_modules dir> --serve
const [nodeModules, reqText] = process.argv.slice(2);
const kcl = require(path.join(nodeModules, '@kcl-lang/lib-linux-x64-gnu'));

function run(req) {
  const reply = { yaml: '', log: '', error: '' };
  try {
    const args = (req.args || []).map((a) => ({ name: a.name, value: a.value }));
    const r = kcl.execProgram(new kcl.ExecProgramArgs(
      req.files, null, req.workDir, args, req.overrides || [], false, !!req.disableNone, 0, 0, !!req.sortKeys,
      [], false, [], false));
    reply.yaml = r.yamlResult || '';
    reply.log = r.logMessage || '';
    reply.error = r.errMessage || '';
  } catch (e) {
    reply.error = String((e && e.message) || e);
  }
  return reply;
}

if (reqText !== '--serve') {
  process.stdout.write(JSON.stringify(run(JSON.parse(reqText))));
} else {
  const rl = require('readline').createInterface({ input: process.stdin, terminal: false });
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    let reply;
    try {
      reply = run(JSON.parse(line));
    } catch (e) {
      reply = { yaml: '', log: '', error: 'oracle: ' + String((e && e.message) || e) };
    }
    process.stdout.write(JSON.stringify(reply) + '\n');
  });
  rl.on('close', () => process.exit(0));
}
