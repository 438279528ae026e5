#!/usr/bin/env node
// bench-official.js times the official KCL engine (the npm add-on
// @kcl-lang/lib-linux-x64-gnu 0.12.1, installed by oracle.sh) on one program in
// a warm loop, so that it can be set side by side with the Go benchmarks.
//
//   node bench-official.js [-print] [-n runs] [-w warmup] [-E name=path]... [-D name=value]...
//                          <node_modules dir> <work dir> <file>...
//
// With -print it runs once and writes the YAML (or the error, exit 1) instead.
// It prints one line:
//   "<label> <ms/run> ms/run <runs> runs rss=<MiB>MiB yaml=<bytes> cpu=<ms>ms/run"
// where label is the work dir's base name and cpu the process's user+system
// time per run. Each run is a full execProgram call (parse, resolve,
// evaluate, print), as the engine offers no reuse across calls.
'use strict';
const path = require('path');

function usage(msg) {
  process.stderr.write((msg ? msg + '\n' : '') +
    'usage: bench-official.js [-n runs] [-w warmup] [-E name=path]... [-D name=value]... <node_modules> <workdir> <file>...\n');
  process.exit(2);
}

const argv = process.argv.slice(2);
let runs = 20;
let warmup = 3;
let printOnly = false;
const ext = [];
const args = [];
const rest = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const next = () => (i + 1 < argv.length ? argv[++i] : usage(a + ' needs a value'));
  if (a === '-print') printOnly = true;
  else if (a === '-n') runs = Number(next());
  else if (a === '-w') warmup = Number(next());
  else if (a === '-E') {
    const [name, p] = next().split('=');
    ext.push({ pkgName: name, pkgPath: path.resolve(p) });
  } else if (a === '-D') {
    const spec = next();
    const eq = spec.indexOf('=');
    args.push({ name: spec.slice(0, eq), value: spec.slice(eq + 1) });
  } else rest.push(a);
}
if (rest.length < 3 || !(runs > 0)) usage();
const [nodeModules, workDir, ...files] = rest;
const kcl = require(path.join(path.resolve(nodeModules), '@kcl-lang/lib-linux-x64-gnu'));
process.chdir(workDir);

function once() {
  const r = kcl.execProgram(new kcl.ExecProgramArgs(
    files, null, null, args, [], false, false, 0, 0, false, ext, false, [], false));
  if (r.errMessage) throw new Error(r.errMessage);
  return r.yamlResult || '';
}

if (printOnly) {
  try {
    process.stdout.write(once());
  } catch (e) {
    process.stderr.write(String((e && e.message) || e));
    process.exitCode = 1;
  }
  return;
}

let yaml = '';
for (let i = 0; i < warmup; i++) yaml = once();
const start = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
for (let i = 0; i < runs; i++) yaml = once();
const cpu = process.cpuUsage(cpu0);
const ns = Number(process.hrtime.bigint() - start);
const ms = ns / 1e6 / runs;
const cpuMs = (cpu.user + cpu.system) / 1e3 / runs;
const rss = process.memoryUsage().rss / (1 << 20);
process.stdout.write(`${path.basename(path.resolve('.'))} ${ms.toFixed(3)} ms/run ${runs} runs ` +
  `rss=${rss.toFixed(0)}MiB yaml=${Buffer.byteLength(yaml)} cpu=${cpuMs.toFixed(3)}ms/run\n`);
