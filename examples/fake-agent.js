#!/usr/bin/env node
// A stand-in for an agent CLI. It follows instruction lines found in its prompt (the last argument):
//   @print <text>            print text to stdout
//   @write <path> <text>     write text (\n for newlines) to a file in the workdir
//   @commit <message>        git add -A && git commit
//   @report pass|fail [text] report on itself through `canopy node complete`
//   @block <reason>          report a blocker through `canopy node block`
//   @read <path>             print whether it can read that file or list that directory ("read <path>: ok" or its error code)
//   @sleep <seconds>         sleep
//   @spawn-sleeper <seconds> leave a child process running (to test process-group cleanup)
//   @exit <code>             exit now with that code
// Without any @print it prints "fake agent ran" so the run has output. A prompt too large for argv
// arrives as a file named by CANOPY_PROMPT_FILE, as a real agent would be told to read it.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const canopy = path.join(__dirname, '..', 'bin', 'canopy.js');
const prompt = process.env.CANOPY_PROMPT_FILE
  ? fs.readFileSync(process.env.CANOPY_PROMPT_FILE, 'utf8')
  : process.argv[process.argv.length - 1] || '';
let printed = false;

function run(file, args) {
  execFileSync(file, args, { stdio: ['ignore', 'inherit', 'inherit'] });
}

function readable(file) {
  try {
    if (fs.statSync(file).isDirectory()) fs.readdirSync(file);
    else fs.readFileSync(file);
    return 'ok';
  } catch (error) {
    return error.code || error.message;
  }
}

for (const line of prompt.split('\n')) {
  const match = /^\s*@([a-z-]+)\s*(.*)$/.exec(line);
  if (!match) continue;
  const [, verb, rest] = match;
  if (verb === 'print') {
    console.log(rest);
    printed = true;
  } else if (verb === 'write') {
    const [file, ...words] = rest.split(' ');
    fs.writeFileSync(path.resolve(file), words.join(' ').replace(/\\n/g, '\n'));
  } else if (verb === 'commit') {
    run('git', ['add', '-A']);
    run('git', ['commit', '-q', '-m', rest || 'fake agent commit']);
  } else if (verb === 'report') {
    const [status, ...words] = rest.split(' ');
    run(process.execPath, [canopy, 'node', 'complete', '--status', status, '--output', words.join(' ')]);
  } else if (verb === 'block') {
    run(process.execPath, [canopy, 'node', 'block', '--reason', rest]);
  } else if (verb === 'read') {
    console.log(`read ${rest}: ${readable(rest)}`);
    printed = true;
  } else if (verb === 'sleep') {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(rest) * 1000);
  } else if (verb === 'spawn-sleeper') {
    spawn('sleep', [rest || '300'], { stdio: 'ignore' }).unref();
  } else if (verb === 'exit') {
    if (!printed) console.log('fake agent ran');
    process.exit(Number(rest));
  }
}
if (!printed) console.log('fake agent ran');
