#!/usr/bin/env node
// The installed entry point runs the compiled CLI (`npm run build` writes dist/).
import { runFromProcess } from "../dist/cli/main.js";

await runFromProcess();
