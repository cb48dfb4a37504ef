#!/usr/bin/env node
// The installed entry point runs the compiled CLI (`npm run build` writes dist/).
import { runCli } from "../dist/cli/main.js";

const io = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
};
process.exitCode = await runCli(process.argv.slice(2), io);
