// The entry of dist/cli.js, the prebuilt client part of `workcell` that bin/ runs (bin/ runs
// this file through tsx when that build is missing).
import { runClientProgram } from "./client-main.js";

runClientProgram(process.argv.slice(2));
